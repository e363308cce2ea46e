/**
 * Raw HTTP/1.1 over a TCP socket, for requests fetch refuses to send (malformed or repeated
 * headers, oversized headers, no Host, pipelining): writes the bytes as given and parses
 * the first response on the connection.
 */
import net from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names lower-cased; a repeated header keeps its last value. */
  headers: Record<string, string>;
  text: string;
  body: any;
  /** Everything the server sent, for responses after the first (pipelining). */
  raw: string;
}

export function parseRawResponse(raw: string): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  const [statusLine, ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let text = end < 0 ? '' : raw.slice(end + 4);
  if (headers['content-length'] !== undefined) text = Buffer.from(text).subarray(0, Number(headers['content-length'])).toString();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status, headers, text, body, raw };
}

/** Splits what a connection received into its responses (bodies delimited by Content-Length). */
export function splitResponses(raw: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = raw;
  while (rest.startsWith('HTTP/')) {
    const res = parseRawResponse(rest);
    const headEnd = rest.indexOf('\r\n\r\n');
    const length = Number(res.headers['content-length'] ?? 0);
    const consumed = headEnd + 4 + Buffer.byteLength(res.text.slice(0, length));
    out.push({ ...res, raw: rest.slice(0, consumed) });
    rest = rest.slice(consumed);
  }
  return out;
}

/**
 * Sends `bytes` to the server at `baseUrl` and resolves with everything it answered once the
 * server closes the connection or `idleMs` passes without data after the first byte.
 */
export function rawExchange(baseUrl: string, bytes: string | Buffer, idleMs = 500): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    };
    const overall = setTimeout(finish, 10000);
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      clearTimeout(timer);
      timer = setTimeout(finish, idleMs);
    });
    socket.on('close', () => {
      clearTimeout(overall);
      finish();
    });
    // The server may reset the connection after answering (it does not read the rest of a refused request).
    socket.on('error', (err: NodeJS.ErrnoException) => (received ? finish() : err.code === 'ECONNRESET' ? finish() : reject(err)));
  });
}

/** One raw request, its first response parsed. */
export async function rawRequest(baseUrl: string, bytes: string | Buffer): Promise<RawResponse> {
  return parseRawResponse(await rawExchange(baseUrl, bytes));
}
