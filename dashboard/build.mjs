// Bundles the dashboard into dist/dashboard/ (index.html, app.js, app.css): one script and
// one stylesheet from 'self', nothing inline, nothing from other hosts (the CSP in
// src/http/dashboard.ts allows nothing else). Run by `npm run build`.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, '../dist/dashboard');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

const result = await build({
  entryPoints: { app: path.join(here, 'src/main.tsx') },
  bundle: true,
  minify: true,
  sourcemap: 'linked',
  format: 'esm',
  target: ['es2020'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: out,
  metafile: true,
  legalComments: 'linked',
  logLevel: 'warning',
});
fs.copyFileSync(path.join(here, 'src/index.html'), path.join(out, 'index.html'));
fs.copyFileSync(path.join(here, 'src/app.css'), path.join(out, 'app.css'));
// The registered documents (graphql-codegen's persisted documents), for the server, outside the served folder.
fs.copyFileSync(path.join(here, 'src/gql/persisted-documents.json'), path.resolve(here, '../dist/persisted-documents.json'));
const js = result.metafile.outputs[path.relative(process.cwd(), path.join(out, 'app.js'))]?.bytes ?? fs.statSync(path.join(out, 'app.js')).size;
console.log(`dashboard: dist/dashboard/app.js ${(js / 1024).toFixed(1)} KiB`);
