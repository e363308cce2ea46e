import { Spine1732233600000 } from './1732233600000-Spine';
import { Money1732320000000 } from './1732320000000-Money';
import { Events1732406400000 } from './1732406400000-Events';
import { Payments1732492800000 } from './1732492800000-Payments';
import { ExactMatchColumns1732579200000 } from './1732579200000-ExactMatchColumns';
import { AuditLog1732752000000 } from './1732752000000-AuditLog';
import { ProviderCalls1732838400000 } from './1732838400000-ProviderCalls';
import { SealedIdempotencyAnswers1733200000000 } from './1733200000000-SealedIdempotencyAnswers';
import { Utf8mb4ExactIds1733300000000 } from './1733300000000-Utf8mb4ExactIds';
import { WebhookEndpointLocks1733300001000 } from './1733300001000-WebhookEndpointLocks';
import { Refunds1733500000000 } from './1733500000000-Refunds';
import { WebhookEndpointManagement1733600000000 } from './1733600000000-WebhookEndpointManagement';
import { StatusListIndexes1733700000000 } from './1733700000000-StatusListIndexes';
import { QrModules1733800000000 } from './1733800000000-QrModules';
import { KeysetFilterIndexes1734000000000 } from './1734000000000-KeysetFilterIndexes';
import { LateGuardProcedure1734100000000 } from './1734100000000-LateGuardProcedure';
import { People1736000000000 } from './1736000000000-People';
import { RestrictedKeys1736500000000 } from './1736500000000-RestrictedKeys';
import { ApprovalPolicies1736500001000 } from './1736500001000-ApprovalPolicies';
import { PaymentLinks1738000000000 } from './1738000000000-PaymentLinks';
import { Finance1737000000000 } from './1737000000000-Finance';
import { PayoutBatches1739100000000 } from './1739100000000-PayoutBatches';
import { BatchApprovals1740300000000 } from './1740300000000-BatchApprovals';
import { SessionSecondFactorAt1740300000100 } from './1740300000100-SessionSecondFactorAt';
import { ApiKeyCreator1740400000000 } from './1740400000000-ApiKeyCreator';
import { ReportRuns1737000001000 } from './1737000001000-ReportRuns';
import { Actors1740100000000 } from './1740100000000-Actors';
import { TeamAuditAndKeyNames1740400000001 } from './1740400000001-TeamAuditAndKeyNames';
import { ProviderAccounts1741400000000 } from './1741400000000-ProviderAccounts';
import { ProviderReferences1741500000000 } from './1741500000000-ProviderReferences';
import { SortIndexes1741617900000 } from './1741617900000-SortIndexes';
import { PayoutProviderReference1741700000000 } from './1741700000000-PayoutProviderReference';

/** Every migration, in order. New migrations are appended here. */
export const MIGRATIONS = [
  Spine1732233600000,
  Money1732320000000,
  Events1732406400000,
  Payments1732492800000,
  ExactMatchColumns1732579200000,
  AuditLog1732752000000,
  ProviderCalls1732838400000,
  SealedIdempotencyAnswers1733200000000,
  Utf8mb4ExactIds1733300000000,
  WebhookEndpointLocks1733300001000,
  Refunds1733500000000,
  WebhookEndpointManagement1733600000000,
  StatusListIndexes1733700000000,
  QrModules1733800000000,
  KeysetFilterIndexes1734000000000,
  LateGuardProcedure1734100000000,
  People1736000000000,
  RestrictedKeys1736500000000,
  ApprovalPolicies1736500001000,
  Finance1737000000000,
  ReportRuns1737000001000,
  PaymentLinks1738000000000,
  PayoutBatches1739100000000,
  Actors1740100000000,
  BatchApprovals1740300000000,
  SessionSecondFactorAt1740300000100,
  ApiKeyCreator1740400000000,
  TeamAuditAndKeyNames1740400000001,
  ProviderAccounts1741400000000,
  ProviderReferences1741500000000,
  SortIndexes1741617900000,
  PayoutProviderReference1741700000000,
];
