/**
 * The currencies and countries the service accepts on a create (payments, payouts, topups):
 * ISO 4217 currencies in circulation with their minor unit (the digits after the decimal
 * point; an amount is a count of those units), a few token symbols, and ISO 3166-1 alpha-2
 * country codes. Funds codes (BOV, CLF, ...), precious metals and testing codes are not
 * currencies a payment is made in. Documented in docs/api.md, "Currencies and countries".
 */

/** Minor units that are not 2. */
const NOT_TWO: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
};

const ISO_4217 = `
AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD
CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD
GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT
LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR
NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP
STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VED VES VND VUV WST XAF XCD
XCG XOF XPF YER ZAR ZMW ZWG`;

/** Token symbols (the spec's "token symbol of 3 to 6 letters"); counted in hundredths, like most currencies. */
const TOKENS = 'USDC USDT';

const words = (text: string): string[] => text.trim().split(/\s+/);

/** Every accepted currency code and its minor unit. */
export const CURRENCY_MINOR_UNITS: ReadonlyMap<string, number> = new Map([...words(ISO_4217), ...words(TOKENS)].map((code) => [code, NOT_TWO[code] ?? 2]));

const ISO_3166_ALPHA_2 = `
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV
BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES
ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE
IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY
MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU
NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM
SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE
VG VI VN VU WF WS YE YT ZA ZM ZW`;

/** ISO 3166-1 alpha-2 codes of the 249 countries and territories. */
export const COUNTRIES: ReadonlySet<string> = new Set(words(ISO_3166_ALPHA_2));

export const isSupportedCurrency = (code: string): boolean => CURRENCY_MINOR_UNITS.has(code);
export const isCountry = (code: string): boolean => COUNTRIES.has(code);
