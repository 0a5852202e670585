import { readFileSync } from 'node:fs';
import path from 'node:path';
import { configSchema as catalogueSchema } from '@connectivity/catalogue';
import { configSchema as gatewaySchema } from '@connectivity/gateway';
import { configSchema as inventorySchema } from '@connectivity/inventory';
import { configSchema as notificationsSchema } from '@connectivity/notifications';
import { commonConfigSchema, serviceConfigSchema, telemetryConfigSchema } from '@connectivity/platform';
import { configSchema as simulatorSchema } from '@connectivity/sandbox-simulator';
import ts from 'typescript';
import { z, type ZodTypeAny } from 'zod';
import { launcherConfigSchema } from './config.ts';
import { LAUNCHER_CREDENTIAL_VARIABLES } from './credential-variables.ts';

/**
 * docs/configuration.md, made from the config schemas themselves: every variable a process reads,
 * its default as the schema gives it, and what it does as the comment above it in the schema says.
 * A test keeps the file equal to this and refuses a variable with no comment, so the reference
 * cannot drift from what the processes parse.
 */

const root = path.resolve(import.meta.dirname, '../../..');

/** Each UPPER_CASE property of an object literal in `file` with the comment just above it (its first one: the schema comes before any use). */
function commentsOf(file: string): Map<string, string> {
  const text = readFileSync(path.join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = new Map<string, string>();
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && /^[A-Z][A-Z0-9_]+$/.test(node.name.text)) {
      const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
      const comment = ranges
        .map((range) => text.slice(range.pos, range.end))
        .map((raw) =>
          raw
            .replace(/^\/\*\*?|\*\/$/g, '')
            .split('\n')
            .map((line) => line.replace(/^\s*(\*|\/\/)\s?/, '').trim())
            .join(' ')
            .trim(),
        )
        .join(' ')
        .trim();
      if (comment && !found.has(node.name.text)) found.set(node.name.text, comment);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The variables of a config schema by name (under any refinement of the object). */
function shapeOf(schema: ZodTypeAny): Record<string, ZodTypeAny> {
  let current: ZodTypeAny = schema;
  while (current instanceof z.ZodEffects) current = (current as z.ZodEffects<ZodTypeAny>).innerType();
  if (!(current instanceof z.ZodObject)) throw new TypeError('a config schema must be an object');
  return (current as z.ZodObject<Record<string, ZodTypeAny>>).shape;
}

/** The default the schema gives a variable that is not set, as the reference shows it. */
function defaultOf(schema: ZodTypeAny): string {
  let current: ZodTypeAny = schema;
  for (;;) {
    if (current instanceof z.ZodEffects) current = (current as z.ZodEffects<ZodTypeAny>).innerType();
    else if (current instanceof z.ZodOptional || current instanceof z.ZodNullable) return 'unset';
    else if (current instanceof z.ZodDefault) {
      const value: unknown = current._def.defaultValue();
      if (value === '') return 'empty';
      return `\`${Array.isArray(value) ? value.join(',') : String(value)}\``;
    } else return 'required';
  }
}

interface Section {
  title: string;
  /** The file that declares the section's variables: the comments above them are their meaning. */
  file: string;
  intro: string;
  schema: ZodTypeAny;
  /** Variables listed in an earlier section (the same for every process that reads them). */
  without?: ZodTypeAny[];
}

const SECTIONS: Section[] = [
  {
    title: 'Every process',
    file: 'packages/platform/src/config.ts',
    intro: 'The gateway, each service and the launcher read these.',
    schema: commonConfigSchema.merge(telemetryConfigSchema),
  },
  {
    title: 'Every service and the gateway',
    file: 'packages/platform/src/service/service-config.ts',
    intro: 'Each deployable reads these beside the common ones (its own port by default).',
    schema: serviceConfigSchema(0),
    without: [commonConfigSchema],
  },
  {
    title: 'gateway',
    file: 'gateway/src/config.ts',
    intro: 'The public edge and the operator admin listener.',
    schema: gatewaySchema,
    without: [serviceConfigSchema(0)],
  },
  {
    title: 'catalogue',
    file: 'services/catalogue/src/config.ts',
    intro: 'Bundles, prices and the live vendors.',
    schema: catalogueSchema,
    without: [serviceConfigSchema(0)],
  },
  {
    title: 'inventory',
    file: 'services/inventory/src/config.ts',
    intro: 'Orders, eSIMs, the ledger and the live life cycle.',
    schema: inventorySchema,
    without: [serviceConfigSchema(0)],
  },
  {
    title: 'notifications',
    file: 'services/notifications/src/config.ts',
    intro: 'Events, webhooks, streams and replays.',
    schema: notificationsSchema,
    without: [serviceConfigSchema(0)],
  },
  {
    title: 'sandbox-simulator',
    file: 'services/sandbox-simulator/src/config.ts',
    intro: 'The test helpers.',
    schema: simulatorSchema,
    without: [serviceConfigSchema(0)],
  },
  {
    title: 'launcher',
    file: 'packages/launcher/src/config.ts',
    intro: '`pnpm start`, `pnpm start:distributed` and `pnpm migrate` (each service still reads its own variables).',
    schema: launcherConfigSchema,
    without: [commonConfigSchema],
  },
];

/** Variables whose names are made from lists (one per caller, service or NATS user). */
function describeComputed(name: string): string | undefined {
  if (!LAUNCHER_CREDENTIAL_VARIABLES.some((variable) => variable === name)) return undefined;
  if (name.endsWith('_DATABASE_URL'))
    return '`pnpm start:distributed`: this service’s own database login, handed to it alone; unset, `DATABASE_URL` (record 0225).';
  if (name.endsWith('_NATS_PASSWORD'))
    return '`pnpm start:distributed`: this NATS user’s password, handed to its process alone; made up in development, required in production (record 0225).';
  return '`pnpm start:distributed`: this caller’s internal token, handed to its process alone; made up in development, required in production (record 0225).';
}

export interface ConfigurationReference {
  markdown: string;
  /** Variables with no comment in their schema (a test requires none). */
  undescribed: string[];
}

export function configurationReference(): ConfigurationReference {
  const undescribed: string[] = [];
  const escape = (text: string) => text.replaceAll('|', '\\|');
  const lines = [
    '# Configuration',
    '',
    '<!-- Made by `pnpm docs:config` from the config schemas and the comments above each variable; do not edit. -->',
    '',
    'Every process reads its environment once at start and refuses to start on a bad value. An empty',
    'value is the same as an unset one. This reference is generated from the schemas the processes',
    'parse: the default is what the schema gives an unset variable, the meaning is the comment above',
    'the variable in its schema.',
  ];
  for (const section of SECTIONS) {
    const skip = new Set((section.without ?? []).flatMap((schema) => Object.keys(shapeOf(schema))));
    const shape = shapeOf(section.schema);
    const names = Object.keys(shape).filter((name) => !skip.has(name));
    if (names.length === 0) continue;
    const comments = commentsOf(section.file);
    lines.push('', `## ${section.title}`, '', section.intro, '', '| Variable | Default | Meaning |', '|---|---|---|');
    for (const name of names) {
      const meaning = comments.get(name) ?? describeComputed(name);
      if (meaning === undefined) undescribed.push(`${section.title}: ${name}`);
      lines.push(`| \`${name}\` | ${defaultOf(shape[name]!)} | ${escape(meaning ?? '')} |`);
    }
  }
  return { markdown: `${lines.join('\n')}\n`, undescribed };
}
