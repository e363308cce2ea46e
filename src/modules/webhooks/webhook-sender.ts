/**
 * The HTTP sender of webhook attempts: one POST, no database access.
 *
 * Every connection is pinned to an address that passed the SSRF rules at the moment of the
 * call (the DNS lookup is ours, so a host that now resolves to a private address is not
 * called); redirects are never followed (a 3xx is recorded as the answer); one deadline bounds
 * the whole attempt, so a receiver trickling bytes cannot outlive the delivery lease; a body
 * larger than RESPONSE_BODY_LIMIT is cut off.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolvePublic } from './ssrf';

const RESPONSE_BODY_LIMIT = 64 * 1024;

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookSenderOptions {
  allowLoopback: boolean;
  timeoutMs: number;
}

/** A `lookup` for http(s).request that answers only with addresses that pass the SSRF rules. */
function pinnedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolvePublic(hostname, allowLoopback).then(
      (addresses) => {
        if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
}

export class WebhookSender {
  constructor(private readonly options: WebhookSenderOptions) {}

  /** The deadline of one attempt; the delivery lease is measured from it. */
  get timeoutMs(): number {
    return this.options.timeoutMs;
  }

  /** One POST, pinned to an address that passed the SSRF rules; redirects are not followed. */
  send(target: string, payload: string, signed: Record<string, string>): Promise<SendResult> {
    const started = Date.now();
    const done = (statusCode: number | null, error: string | null): SendResult => ({
      statusCode,
      error: error?.slice(0, 512) ?? null,
      durationMs: Date.now() - started,
    });
    const url = new URL(target);
    const { allowLoopback, timeoutMs } = this.options;
    const lookup = pinnedLookup(allowLoopback);
    return new Promise<SendResult>((resolve) => {
      // One deadline for the whole attempt (DNS, connect, answer, body): the socket `timeout`
      // alone only bounds idle gaps, so a receiver trickling bytes could outlive the lease and
      // another process would repeat the attempt while this one still runs.
      let status: number | null = null;
      let req: http.ClientRequest | undefined;
      let settled = false;
      const redirectNote = () => (status !== null && status >= 300 && status < 400 ? `redirect (${status}) not followed` : null);
      const settle = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(result);
      };
      const deadline = setTimeout(() => {
        // An answer whose status line arrived counts by its status; the rest of its body is not awaited.
        settle(status !== null ? done(status, redirectNote()) : done(null, `timed out after ${timeoutMs} ms`));
        req?.destroy();
      }, timeoutMs);
      const hostIsIp = /^[\d.]+$|^\[/.test(url.hostname);
      const preflight = hostIsIp ? resolvePublic(url.hostname, allowLoopback).then(() => undefined) : Promise.resolve();
      preflight.then(
        () => {
          if (settled) return;
          req = (url.protocol === 'https:' ? https : http).request(
            url,
            {
              method: 'POST',
              lookup,
              timeout: timeoutMs,
              headers: {
                'content-type': 'application/json',
                'user-agent': 'payments-gateway-webhooks/1.0',
                'content-length': Buffer.byteLength(payload),
                ...signed,
              },
            },
            (res) => {
              let received = 0;
              res.on('data', (chunk: Buffer) => {
                received += chunk.length;
                if (received > RESPONSE_BODY_LIMIT) res.destroy();
              });
              status = res.statusCode ?? null;
              const finish = () => settle(done(status, redirectNote()));
              res.on('end', finish);
              res.on('close', finish);
              res.on('error', finish);
            },
          );
          req.on('timeout', () => req?.destroy(new Error(`timed out after ${timeoutMs} ms`)));
          req.on('error', (err) => settle(done(status, status !== null ? redirectNote() : err.message)));
          req.end(payload);
        },
        (err: Error) => settle(done(null, err.message)),
      );
    });
  }
}
