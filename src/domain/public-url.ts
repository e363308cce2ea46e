/**
 * The base of every link the service gives out (hosted checkout, and later payment links and
 * setup links): PUBLIC_BASE_URL, never a request's Host or X-Forwarded-* headers, which a
 * client chooses. Without PUBLIC_BASE_URL (development and tests only: production refuses to
 * start without it) links point at the address the server listens on.
 */
export class PublicBaseUrl {
  private listening?: string;

  /** `configured`: PUBLIC_BASE_URL without its trailing slash; `host`: the address the server binds. */
  constructor(
    private readonly configured: string | undefined,
    private readonly host: string,
  ) {}

  /** Called once the server listens, with its port. */
  listeningOn(port: number): void {
    const wildcard = this.host === '0.0.0.0' || this.host === '::' || this.host === '';
    const host = wildcard ? 'localhost' : this.host.includes(':') ? `[${this.host}]` : this.host;
    this.listening = `http://${host}:${port}`;
  }

  /** The base URL, without a trailing slash. */
  get(): string {
    const base = this.configured ?? this.listening;
    if (!base) throw new Error('no public base URL yet: PUBLIC_BASE_URL is unset and the server is not listening');
    return base;
  }
}
