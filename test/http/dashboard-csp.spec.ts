/** The dashboard's Content-Security-Policy: same origin only, plus the same host's graphql-ws socket. */
import { dashboardCsp } from '../../src/http/dashboard';

describe('dashboardCsp', () => {
  test('everything from self, the socket of the same host, nothing inline', () => {
    const csp = dashboardCsp('gateway.example.com:4000');
    expect(csp.split('; ')).toEqual([
      "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:",
      "connect-src 'self' ws://gateway.example.com:4000 wss://gateway.example.com:4000",
      "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
    ]);
    expect(csp).not.toMatch(/unsafe|\*/);
    expect(dashboardCsp('[::1]:4000')).toContain('ws://[::1]:4000');
  });

  test('a Host header that is not a plain host[:port] adds no source (no policy injection)', () => {
    for (const host of [undefined, '', 'evil.example; script-src *', 'a b', 'x.example/path', "x.example 'unsafe-inline'"]) {
      const csp = dashboardCsp(host);
      expect(csp).toContain("connect-src 'self'; ");
      expect(csp).not.toMatch(/unsafe|\*|evil|path/);
    }
  });
});
