/** The dashboard's Content-Security-Policy: same origin only, plus the public base URL's graphql-ws socket. */
import { dashboardCsp } from '../../src/http/dashboard';

describe('dashboardCsp', () => {
  test('everything from self, the socket of the public base URL, nothing inline', () => {
    const csp = dashboardCsp('http://gateway.example.com:4000');
    expect(csp.split('; ')).toEqual([
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self' ws://gateway.example.com:4000",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ]);
    expect(csp).not.toMatch(/unsafe|\*/);
    expect(dashboardCsp('https://pay.example.com/gw')).toContain("connect-src 'self' wss://pay.example.com;");
    expect(dashboardCsp('http://[::1]:4000')).toContain('ws://[::1]:4000');
  });
});
