/**
 * Trusted documents: the dashboard's operations, registered at build time. graphql-codegen
 * writes every operation of dashboard/src with its sha256 hash (persisted-documents.json, which
 * the dashboard build copies to dist/); the dashboard sends `documentId` instead of the text
 * (the GraphQL-over-HTTP persisted documents form, `"sha256:<hex>"`), and the server puts the
 * registered text in its place before Apollo runs. Apollo keeps each parsed and validated
 * document, so a registered one is parsed and validated once per process, not per request.
 *
 * With GRAPHQL_TRUSTED_DOCUMENTS=only, a signed-in member (the dashboard's cookie session)
 * may run registered documents only; API keys keep full GraphQL either way.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from '../domain/errors';
import type { Principal } from '../domain/permissions';

/** Where the dashboard build leaves the manifest: dist/persisted-documents.json. */
export const MANIFEST = path.resolve(__dirname, '../../persisted-documents.json');

export type TrustedDocumentsMode = 'accept' | 'only';

export class TrustedDocuments {
  private constructor(
    private readonly byId: ReadonlyMap<string, string>,
    readonly mode: TrustedDocumentsMode,
  ) {}

  /** The manifest at `file`; a build without the dashboard has none (every documentId is unknown). */
  static load(mode: TrustedDocumentsMode, file = MANIFEST): TrustedDocuments {
    let entries: Record<string, string> = {};
    if (fs.existsSync(file)) entries = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
    return new TrustedDocuments(new Map(Object.entries(entries)), mode);
  }

  get size(): number {
    return this.byId.size;
  }

  /** The registered text of `documentId`; a validation_error on `param` when it is not one. */
  text(documentId: unknown, param: string): string {
    const text = typeof documentId === 'string' ? this.byId.get(documentId) : undefined;
    if (text === undefined) throw ApiError.validation(param, 'Unknown document: documentId must name one of the dashboard’s registered documents.');
    return text;
  }

  /** A request sending document text instead of an id: refused for a member when mode is `only`. */
  refuseText(principal: Principal, param: string): void {
    if (this.mode === 'only' && principal.type === 'member') {
      throw ApiError.validation(param, 'Signed-in sessions run the dashboard’s registered documents only: send documentId instead of query.');
    }
  }
}
