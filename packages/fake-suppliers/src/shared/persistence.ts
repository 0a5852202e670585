import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Keeps a fake's state in a JSON file, so a restarted fake remembers what it sold. */
export class JsonFileStore<T> {
  private readonly file: string | undefined;

  constructor(file: string | undefined) {
    this.file = file;
  }

  load(fresh: () => T): T {
    if (!this.file || !existsSync(this.file)) return fresh();
    return JSON.parse(readFileSync(this.file, 'utf8')) as T;
  }

  save(state: T): void {
    if (!this.file) return;
    mkdirSync(dirname(this.file), { recursive: true });
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, JSON.stringify(state));
    renameSync(temporary, this.file);
  }
}
