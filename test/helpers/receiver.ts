/** A webhook receiver for tests: a real HTTP server on loopback that records every request. */
import http from 'node:http';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** `trickle`: send the status line, then a byte every 100 ms and never finish. */
export type Answer = { status: number; headers?: Record<string, string>; body?: string; trickle?: boolean };

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Decides each answer (default 200); `n` counts requests with the same webhook-id, from 1. */
  respond: (req: Received, n: number) => Answer | Promise<Answer>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const respond: Receiver['respond'] = () => ({ status: 200 });
  const receiver = { received, respond } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    const reply = async (): Promise<void> => {
      const r: Received = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(r);
      const n = received.filter((x) => x.headers['webhook-id'] === r.headers['webhook-id']).length;
      const answer = await receiver.respond(r, n);
      res.writeHead(answer.status, answer.headers ?? {});
      if (answer.trickle) {
        res.flushHeaders();
        const timer = setInterval(() => res.write(' '), 100);
        res.on('close', () => clearInterval(timer));
        return;
      }
      res.end(answer.body ?? '');
    };
    // A respond() that throws resets the connection: the sender sees a failed delivery.
    req.on('end', () => void reply().catch(() => res.destroy()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  receiver.port = port;
  receiver.url = `http://127.0.0.1:${port}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
