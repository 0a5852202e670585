/** What changed about keys or an account, as every gateway instance is told (see `consumers/key-changes.ts`). */
export interface KeyChangeNotice {
  /** Keys revoked, restricted or replaced: dropped from every cache, and their open streams closed. */
  keyIds?: string[];
  accountId?: string;
  /** A key was issued: forget the tokens remembered as unknown (one of them may be it now). */
  issued?: boolean;
}
