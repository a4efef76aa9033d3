import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { IdempotencyInProgressError, IdempotencyKeyReusedError, ValidationError } from '@community/contracts';
import {
  inTransaction,
  keepAnswer,
  keptAnswer,
  lockKey,
  withAmbient,
  type KeyRef,
  type Sql,
  type Tx,
} from '@community/db';
import type { Logger } from '@community/logging';
import { errorHandler } from './error-handler';
import { callerOf } from './identity';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** 1–255 visible ASCII characters (DESIGN.md §10). */
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencyOptions {
  /** The service's pool (wrapped with `joinable`, so its use cases join the request's transaction). */
  sql: Sql;
  logger: Logger;
  /**
   * Whose key it is when the gateway sent no caller: the users-service names the account of a
   * session cookie here. Null or absent: the client address (registration, DESIGN.md §10).
   */
  anonymousOwner?: (req: Request, res: Response) => Promise<string | null>;
  /** Fault injection for the e2e suite: called after the commit, before the answer is sent. */
  afterCommit?: (key: string) => void;
}

/** What the handler answered, held back until its transaction has committed. */
interface Answer {
  status: number;
  body: string;
  location: string | null;
}

/**
 * `Idempotency-Key` for every POST it is mounted in front of (DESIGN.md §10). The handler runs in
 * one transaction that its use cases join (see `withAmbient`): the key and the first answer the
 * service produced are written in it, so a crash either loses both the write and the key or keeps
 * both — a retry never creates a second object nor emits a second event. The answer leaves only
 * after the commit. A 5xx keeps nothing and rolls back everything; a 4xx keeps its answer and rolls
 * back whatever the handler wrote before failing. The lock on the key makes a concurrent retry a
 * `409 idempotency_in_progress` instead of a second run.
 */
export function idempotentPosts(options: IdempotencyOptions): RequestHandler {
  const answerError = errorHandler(options.logger);
  return async (req, res, next) => {
    const header = req.headers[IDEMPOTENCY_KEY_HEADER];
    if (req.method !== 'POST' || header === undefined) return next();
    let held: HeldAnswer | undefined;
    try {
      const key = parseKey(header);
      const ref = keyRef(await ownerOf(req, res, options), key);
      const fingerprint = fingerprintOf(req);
      const outcome = await inTransaction(options.sql, async (tx): Promise<Outcome> => {
        if (!(await lockKey(tx, ref))) throw new IdempotencyInProgressError();
        const kept = await keptAnswer(tx, ref);
        if (kept) {
          if (!kept.fingerprint.equals(fingerprint)) throw new IdempotencyKeyReusedError();
          return { replay: unseal(kept.answer, ref.sealKey) };
        }
        held = new HeldAnswer(res);
        const { answer, afterCommit } = await runHandler(held, tx, options.sql, next);
        // A 5xx keeps nothing: everything rolls back, and a retry runs anew.
        if (answer.status >= 500) throw new RolledBack();
        await keepAnswer(tx, ref, { fingerprint, status: answer.status, answer: seal(answer, ref.sealKey) });
        return { afterCommit };
      });
      if ('replay' in outcome) return replay(res, outcome.replay);
      outcome.afterCommit.forEach((hook) => hook());
      options.afterCommit?.(key);
      held!.send();
    } catch (err) {
      if (!held) return next(err);
      if (err instanceof RolledBack) return held.send();
      // The handler answered, but its transaction did not commit: that answer must not leave.
      held.discard();
      answerError(err, req, res, next);
    }
  };
}

type Outcome = { replay: Answer } | { afterCommit: (() => void)[] };

/** Thrown to roll back a transaction whose answer is sent all the same. */
class RolledBack extends Error {
  constructor() {
    super('rolled back');
  }
}

/**
 * Runs the rest of the chain inside a savepoint of `tx`, with that savepoint ambient: the handler's
 * use cases join it. Resolves once the handler has answered, with that answer and the hooks to run
 * after the commit. A failed request (4xx) keeps its answer but nothing it wrote.
 */
async function runHandler(
  held: HeldAnswer,
  tx: Tx,
  sql: Sql,
  next: () => void,
): Promise<{ answer: Answer; afterCommit: (() => void)[] }> {
  let answer: Answer | undefined;
  let afterCommit: (() => void)[] = [];
  try {
    await tx.savepoint(async (handlerTx) => {
      const run = await withAmbient(sql, handlerTx, () => {
        next();
        return held.answer;
      });
      answer = run.result;
      afterCommit = run.afterCommit;
      if (answer.status >= 400) throw new RolledBack();
    });
  } catch (err) {
    if (!(err instanceof RolledBack)) throw err;
    afterCommit = [];
  }
  return { answer: answer!, afterCommit };
}

/** Holds back what the handler sends (`res.end`) until `send()`, or drops it with `discard()`. */
class HeldAnswer {
  readonly answer: Promise<Answer>;
  private readonly end: Response['end'];
  private ended?: unknown[];

  constructor(private readonly res: Response) {
    this.end = res.end;
    this.answer = new Promise((resolve) => {
      res.end = ((...args: unknown[]) => {
        this.ended ??= args;
        const chunk = typeof args[0] === 'function' ? undefined : args[0];
        resolve({
          status: res.statusCode,
          body: chunk == null ? '' : Buffer.from(chunk as string | Uint8Array).toString('utf8'),
          location: (res.getHeader('Location') as string | undefined) ?? null,
        });
        return res;
      }) as Response['end'];
    });
  }

  send(): void {
    this.res.end = this.end;
    if (this.ended) (this.end as (...args: unknown[]) => Response).apply(this.res, this.ended);
  }

  /** Restores `res.end` and clears what the handler set, for another answer. */
  discard(): void {
    this.res.end = this.end;
    this.ended = undefined;
    for (const name of this.res.getHeaderNames()) if (name !== 'x-request-id') this.res.removeHeader(name);
  }
}

function replay(res: Response, { status, body, location }: Answer): void {
  res.setHeader(REPLAYED_HEADER, 'true');
  res.setHeader('Cache-Control', 'no-store');
  if (location) res.setHeader('Location', location);
  res.status(status).type('application/json').send(body);
}

function parseKey(header: string | string[]): string {
  const key = Array.isArray(header) ? header.join(', ') : header;
  if (!VALID_KEY.test(key)) {
    throw ValidationError.single(
      'Idempotency-Key',
      'invalid_value',
      'Idempotency-Key must be 1 to 255 visible ASCII characters',
    );
  }
  return key;
}

async function ownerOf(req: Request, res: Response, options: IdempotencyOptions): Promise<string> {
  if (res.locals.actor) return callerOf(res.locals);
  return (await options.anonymousOwner?.(req, res)) ?? callerOf(res.locals);
}

const sha256 = (...parts: string[]) => createHash('sha256').update(parts.join('\n')).digest();

/** The row's lookup hash and the answer's sealing key: both need the key, which is never stored. */
function keyRef(owner: string, key: string): KeyRef & { sealKey: Buffer } {
  return {
    owner,
    keyHash: sha256('idempotency-key', owner, key),
    sealKey: sha256('idempotency-seal', owner, key),
  };
}

/** Method, path with query, and the body as parsed: a retry must match all three (DESIGN.md §10). */
function fingerprintOf(req: Request): Buffer {
  return sha256(req.method, req.originalUrl, JSON.stringify(req.body ?? null));
}

function seal(answer: Answer, key: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(answer), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
}

function unseal(sealed: Buffer, key: Buffer): Answer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  const plain = Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as Answer;
}
