//! The deliberate faults of the reference: one variant per deviation from one rule.
//!
//! Each fault names the rule of `cases/rules.toml` it breaks, and the handlers ask
//! `faults.has(Fault::X)` at the one place the deviation happens. A fault must always be
//! observable by a black-box client holding only the profile; it never depends on special
//! headers or on state shared between servers.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

macro_rules! faults {
    ($($variant:ident => $name:literal, $rule:literal, $desc:literal;)*) => {
        /// One deliberate deviation of the reference from one rule.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Fault { $($variant,)* }

        const ALL: &[Fault] = &[$(Fault::$variant,)*];

        impl Fault {
            /// Its kebab-case name, as `--fault` takes it.
            pub fn name(self) -> &'static str {
                match self { $(Fault::$variant => $name,)* }
            }
            /// The id of the rule of `cases/rules.toml` it breaks.
            pub fn rule(self) -> &'static str {
                match self { $(Fault::$variant => $rule,)* }
            }
            /// What the faulty server does, in one line.
            pub fn description(self) -> &'static str {
                match self { $(Fault::$variant => $desc,)* }
            }
        }
    };
}

faults! {
    // ------------------------------------------------------------ generic
    NonJsonBody => "gen-json-body-broken", "GEN-JSON-BODY",
        "get counterpart VAT ID answers a debug dump that is not JSON (still labelled application/json)";
    JsonAsTextPlain => "gen-json-served-as-text-plain", "GEN-JSON-BODY",
        "list events serves its JSON page with Content-Type text/plain";
    MailboxIdNotUuid => "gen-mailbox-id-not-uuid", "GEN-IDS-UUID",
        "create mailbox domain answers an id like `mbx_0001` instead of a uuid";
    ServerErrorOnValidRequest => "gen-5xx-on-valid-request", "GEN-NO-5XX",
        "list events answers 500 to a valid query with order=desc";
    UnparseableBodyAsEmpty => "gen-unparseable-body-read-as-empty", "GEN-REJECT-NOT-2XX",
        "a finance request body that is not JSON is read as an empty object, so update comment accepts it";
    ServerErrorOnUnparseableBody => "gen-500-on-unparseable-body", "GEN-NO-5XX",
        "a request body that is not JSON is answered 500 instead of a 4xx";
    UsageLimitBelowMinusOneAccepted => "gen-usage-limit-below-minus-one-accepted", "VC-USAGE-LIMIT-RANGE",
        "create velocity control accepts a usageLimit below -1 (e.g. -5)";
    MemoRejected => "gen-valid-memo-rejected", "GEN-VALID-ACCEPTED",
        "create receivable refuses a valid quote or invoice body whose memo is a non-empty string (422)";
    LimitTenPercentTight => "gen-limit-ten-percent-tight", "GEN-LIMIT-INCLUSIVE",
        "create receivable applies the trade_name limit ten percent too tight: more than 229 characters are refused (the limit is 255)";
    LengthInBytes => "gen-length-in-bytes", "GEN-LENGTH-CODE-POINTS",
        "create VAT ID counts the length of value in UTF-8 bytes, so 32 characters of é (64 bytes) are refused";
    LengthInUtf16Units => "gen-length-in-utf16-units", "GEN-LENGTH-CODE-POINTS",
        "create receivable counts the length of trade_name in UTF-16 units, so 255 characters outside the Basic Multilingual Plane are refused";
    ListedValueRefused => "gen-listed-value-refused", "GEN-ENUM-ACCEPTED",
        "create VAT ID refuses the listed country ZW";
    DateLeapDayRefused => "date-leap-day-refused", "GEN-FORMAT-CLASSES",
        "create receivable refuses February 29 as an expiry_date or fulfillment_date, as a parser that gives February 28 days in every year does";
    UuidUpperCaseRefused => "uuid-upper-case-refused", "GEN-UUID-CASE",
        "create receivable looks counterpart_id up as text: the profile's counterpart in upper case is not found (404)";
    // ------------------------------------------------------------ standards the spec invokes
    FinChallengeMissing => "auth-401-without-challenge", "HTTP-401-CHALLENGE",
        "finance 401 answers carry no WWW-Authenticate header";
    BankChallengeMissing => "auth-bank-401-without-challenge", "HTTP-401-CHALLENGE",
        "embedded banking 401 answers carry no WWW-Authenticate header";
    AllowMissing => "gen-405-without-allow", "HTTP-405-ALLOW",
        "405 answers carry no Allow header";
    HeaderNamesCaseSensitive => "fin-header-names-case-sensitive", "HTTP-HEADER-NAME-CASE",
        "the connection reads x-finops-version only when its name comes in lower case: X-Finops-Version is taken for no version header (400)";
    ContentTypeCaseSensitive => "gen-content-type-case-sensitive", "HTTP-MEDIA-TYPE-CASE",
        "create receivable refuses a body whose Content-Type is not spelled in lower case (Application/JSON) with 415";
    JsonBom => "gen-json-bom", "JSON-NO-BOM",
        "get counterpart VAT ID answers its JSON after a UTF-8 byte order mark";
    NanInAnswer => "gen-nan-in-answer", "JSON-NO-NAN",
        "a created quote whose subtotal is 0 answers discounted_subtotal as NaN";
    VersionWordAccepted => "ver-finops-word-accepted", "VER-FINOPS-MALFORMED",
        "a finance request whose x-finops-version is the word latest is served as the newest version";
    // ------------------------------------------------------------ unlisted methods, writes read back
    JsonWithoutContentType => "gen-json-served-without-content-type", "GEN-JSON-CONTENT-TYPE",
        "list events serves its JSON page with no Content-Type";
    UnlistedMethodHtml => "gen-unlisted-method-html", "GEN-JSON-BODY",
        "a method the spec does not list on a stated path is answered 405 with an HTML page (text/html)";
    UnlistedMethodBareBody => "gen-unlisted-method-bare-body", "GEN-UNLISTED-METHOD-BODY",
        "a method the spec does not list on a stated path is answered 405 with {\"message\": ...}, not the area's error body";
    QuoteFooterDropped => "rcv-quote-footer-dropped", "RCV-FIELDS-ECHO",
        "create receivable answers footer: null whatever footer was given";
    OmittedAttachmentsDefaulted => "rcv-omitted-attachments-defaulted", "RCV-ATTACHMENTS-OMITTED",
        "a receivable created without attachments is answered with one attachment";
    CommentUntouchedReset => "cmt-untouched-field-reset", "CMT-UPDATE-KEEPS",
        "an update of a comment that does not carry reply_to_entity_user_id resets it to the nil uuid";
    VatCreateValueTruncated => "vat-create-value-truncated", "VAT-ROUNDTRIP",
        "create VAT ID answers the value without its last character (the stored VAT ID keeps it as given)";
    WrittenEventTimeNotDateTime => "evt-written-created-at-not-date-time", "EVT-ITEM",
        "the events of writes made while the server runs carry created_at as Unix seconds (the seeded history is right)";
    // ------------------------------------------------------------ authentication
    FinMissingTokenAccepted => "auth-fin-missing-token-accepted", "AUTH-FIN-MISSING-401",
        "a finance request without Authorization is served as if authenticated";
    FinMissingToken403 => "auth-fin-missing-token-403", "AUTH-FIN-MISSING-401",
        "a finance request without Authorization is answered 403 instead of 401";
    FinInvalidTokenAccepted => "auth-fin-invalid-token-accepted", "AUTH-FIN-INVALID-401",
        "any bearer token is accepted on finance requests";
    FinTokenPrefixAccepted => "auth-fin-token-prefix-match", "AUTH-FIN-INVALID-401",
        "a finance bearer token that starts with the real one (characters appended) is accepted";
    BankMissingTokenAccepted => "auth-bank-missing-token-accepted", "AUTH-BANK-REQUIRED",
        "an embedded banking request without Authorization is served as the scoped client";
    BankInvalidToken403 => "auth-bank-invalid-token-403", "AUTH-BANK-401",
        "an embedded banking request with a missing or unknown token is answered 403 instead of 401";
    BankTokenComparedByPrefix => "auth-bank-token-compared-by-prefix", "AUTH-BANK-REQUIRED",
        "embedded banking tokens are compared over the shorter length: one truncated or with characters appended is accepted";
    FinBankingTokenAccepted => "auth-fin-banking-token-accepted", "AUTH-CROSS-FIN-401",
        "a finance request carrying a token issued by the embedded banking token endpoint is served";
    BankFinanceTokenAccepted => "auth-bank-finance-token-accepted", "AUTH-CROSS-BANK-REFUSED",
        "an embedded banking request carrying the finance bearer token is served as the scoped client";
    BankFinanceTokenAcceptedUnderHeader => "auth-bank-finance-token-accepted-under-header", "AUTH-CROSS-BANK-REFUSED",
        "an embedded banking request carrying the finance bearer token and the organization header is served as the scoped client";
    ScopeNotRequired => "vc-scope-not-required", "VC-SCOPE-REQUIRED",
        "create velocity control succeeds with a token lacking authorization_control:write:org";
    ScopeCheckedUnderHeaderOnly => "vc-scope-checked-under-header-only", "VC-SCOPE-REQUIRED",
        "create velocity control checks the scope only when the organization header is sent: without it (the caller's own organization) a token without the scope creates the control";
    Scope401 => "vc-scope-missing-401", "VC-SCOPE-403",
        "a token lacking the scope is answered 401 instead of 403";
    OrgHeaderMalformedAccepted => "bank-org-header-malformed-accepted", "BANK-ORG-HEADER-MALFORMED-400",
        "an empty or non-uuid organization header is ignored instead of answered 400";
    OrgHeaderEmptyAsAbsent => "bank-org-header-empty-as-absent", "BANK-ORG-HEADER-MALFORMED-400",
        "an empty organization header is taken as no header (the caller's own organization) instead of answered 400";
    OrgHeaderRequired => "bank-org-header-required", "BANK-ORG-HEADER-OPTIONAL",
        "embedded banking requests without the organization header are answered 400";
    OrgIsolationBroken => "fin-org-isolation-broken", "FIN-ORG-ISOLATION",
        "get counterpart VAT ID ignores x-organization-id: another organization's VAT ID is readable";
    ForeignWritesAccepted => "fin-tenant-writes-accepted", "FIN-TENANT-WRITE",
        "update comment, delete tag or bank account, create VAT ID and create receivable act on another organization's resources";
    EventsOfEveryOrganization => "fin-tenant-events-listed", "FIN-TENANT-EVENTS",
        "list events lists the events of every organization under any one";
    MailboxRequiresOrgHeader => "fin-mailbox-requires-org-header", "FIN-MAILBOX-NO-ORG-HEADER",
        "create mailbox domain answers 400 without x-organization-id";
    VersionMalformedAccepted => "ver-finops-malformed-accepted", "VER-FINOPS-MALFORMED",
        "a finance request whose x-finops-version is not a date is served";
    FinOrgHeaderMalformedOwn => "fin-org-header-malformed-own", "FIN-ORG-HEADER-MALFORMED",
        "a finance request whose x-organization-id is not a UUID is served for the caller's own organization";
    EventsPathWithoutV1 => "ver-events-path-without-v1", "VER-PATH-V1",
        "list events is served at /finops/events; /finops/v1/events answers 404";
    FinBasicSchemeAccepted => "auth-basic-scheme-accepted", "AUTH-FIN-SCHEME-401",
        "a finance request carrying the real token under the Basic scheme (`Authorization: Basic <token>`) is served";
    FinSchemeCaseSensitive => "auth-fin-scheme-case-sensitive", "AUTH-SCHEME-CASE",
        "a finance request whose scheme is not spelled exactly `Bearer` (`bearer <token>`) is answered 401";
    FinTokenEndsCompared => "auth-fin-token-ends-compared", "AUTH-FIN-INVALID-401",
        "finance tokens are compared by their length and their first and last eight characters: one changed in the middle is accepted";
    BankBareTokenAccepted => "auth-bank-bare-token-accepted", "AUTH-BANK-REQUIRED",
        "an embedded banking request whose Authorization is the bare token, with no scheme, is served";
    OrgHeaderUuidPrefixAccepted => "bank-org-header-uuid-prefix-accepted", "BANK-ORG-HEADER-MALFORMED-400",
        "the organization header is read as the UUID it starts with: `<uuid>x` or `<uuid> junk` acts for that organization";
    OrgHeaderUuidNotationsAccepted => "bank-org-header-uuid-notations-accepted", "BANK-ORG-HEADER-UUID-FORM",
        "the organization header is read as any notation of a UUID: braced, `urn:uuid:` and unhyphenated UUIDs act for their organization";
    // ------------------------------------------------------------ receivables
    MixedShapeAccepted => "rcv-mixed-shape-accepted", "RCV-ONE-OF-SHAPES",
        "a body mixing based_on with invoice fields is taken as an invoice body (201)";
    UnknownPropsAccepted => "rcv-unknown-props-accepted", "RCV-UNKNOWN-PROPS",
        "quote and invoice bodies ignore unknown properties instead of rejecting them";
    UnknownPropsAcceptedBasedOn => "rcv-unknown-props-accepted-based-on", "RCV-UNKNOWN-PROPS",
        "the based-on body ignores unknown properties instead of rejecting them";
    InvoiceFieldInQuoteAccepted => "rcv-invoice-field-in-quote-accepted", "RCV-SHAPE-EXCLUSIVE",
        "a quote body carrying invoice-only fields (purchase_order, ...) is accepted";
    QuoteFieldInInvoiceAccepted => "rcv-quote-field-in-invoice-accepted", "RCV-SHAPE-EXCLUSIVE",
        "an invoice body carrying quote-only fields (expiry_date, ...) is accepted";
    TypeUnchecked => "rcv-type-unchecked", "RCV-TYPE-CONST",
        "a body whose type is neither quote nor invoice (and no based_on) is created as a quote";
    CurrencyAnyString => "rcv-currency-any-string", "RCV-CURRENCY-CODE",
        "a receivable currency that is not a three-letter code (e.g. \"euro\") is accepted";
    CurrencyOptional => "rcv-required-currency-optional", "RCV-REQUIRED",
        "a quote or invoice body without currency is accepted";
    BasedOnTypeOptional => "rcv-based-on-type-optional", "RCV-BASED-ON-REQUIRED",
        "a based-on body without type is accepted; the type is inferred from the source";
    OptionalIdsUnchecked => "rcv-optional-ids-unchecked", "RCV-FIELD-TYPES",
        "the optional reference ids of a receivable (bank_account_id, project_id, ...) take any value";
    FieldTypesLoose => "rcv-field-types-loose", "RCV-FIELD-TYPES",
        "tax_exempt accepts any JSON value (\"yes\", 1) instead of a boolean or null";
    NullFooterRejected => "rcv-null-footer-rejected", "RCV-NULLABLE",
        "footer: null is refused with 422 although footer is string or null";
    AttachmentsEmptyAccepted => "rcv-attachments-empty-accepted", "RCV-ATTACHMENTS-MIN",
        "attachments is not validated: an empty array is accepted";
    LimitsTogetherRefused => "rcv-limits-together-refused", "GEN-LIMITS-TOGETHER",
        "create receivable refuses trade_name at 255 characters and counterpart_business_type at 50 in one body (a combined limit of 300), though it accepts each alone";
    NestedItemsUnchecked => "rcv-nested-items-unchecked", "RCV-FIELD-TYPES",
        "the items of attachments and deductions are not checked: a string or null item is accepted";
    LineItemVatRateUnchecked => "rcv-line-item-vat-rate-unchecked", "RCV-FIELD-TYPES",
        "a line item's vat_rate_id is not checked: one that is not a UUID is accepted";
    LineItemQuantityUnchecked => "rcv-line-item-quantity-unchecked", "RCV-SAMPLE-SHAPES",
        "a line item's quantity is not checked: one that is not a number (\"two\", null) is read as 1";
    BasedOnTagIdsUnchecked => "rcv-based-on-tag-ids-unchecked", "RCV-FIELD-TYPES",
        "the based-on body's tag_ids are not checked: ids that are not UUIDs are accepted (the quote and invoice bodies still check theirs)";
    BankAccountTypeAny => "rcv-bank-account-type-any", "RCV-BANK-ACCOUNT-TYPE-ENUM",
        "bank_account_type is not validated: any value is accepted";
    BusinessTypeMaxIgnored => "rcv-business-type-max-ignored", "RCV-BUSINESS-TYPE-MAX",
        "counterpart_business_type is not validated: 51 characters are accepted";
    DeductionsMaxIgnored => "rcv-deductions-max-ignored", "RCV-DEDUCTIONS-MAX",
        "deductions is not validated: 11 items are accepted";
    DocumentIdLenIgnored => "rcv-document-id-len-ignored", "RCV-DOCUMENT-ID-LEN",
        "document_id is not validated: an empty string or 101 characters are accepted";
    DocumentIdMaxIgnored => "rcv-document-id-max-ignored", "RCV-DOCUMENT-ID-LEN",
        "document_id's maximum is not validated: 101 characters are accepted (an empty one is still refused)";
    TradeNameMaxIgnored => "rcv-trade-name-max-ignored", "RCV-TRADE-NAME-MAX",
        "trade_name is not validated: 256 characters are accepted";
    WithholdingRangeIgnored => "rcv-withholding-range-ignored", "RCV-WITHHOLDING-RANGE",
        "withholding_tax_rate is not validated: 10001 and -1 are accepted";
    ExpiryDateUnchecked => "rcv-expiry-date-unchecked", "RCV-QUOTE-EXPIRY-DATE",
        "expiry_date is not validated: any string is accepted";
    QuoteAcceptUrlUnchecked => "rcv-quote-accept-url-unchecked", "RCV-QUOTE-ACCEPT-URL",
        "quote_accept_page_url is not validated: a non-URI or empty string is accepted";
    FulfillmentDateUnchecked => "rcv-fulfillment-date-unchecked", "RCV-FULFILLMENT-DATE",
        "fulfillment_date is not validated: any string is accepted";
    FulfillmentDatePastRejected => "rcv-fulfillment-date-past-rejected", "RCV-FULFILLMENT-DATE",
        "a fulfillment_date in the past is refused with 422";
    PaymentUrlLenIgnored => "rcv-payment-url-len-ignored", "RCV-PAYMENT-URL-LEN",
        "payment_page_url is not validated: 2084 characters or a non-URI are accepted";
    PurchaseOrderMaxIgnored => "rcv-purchase-order-max-ignored", "RCV-PURCHASE-ORDER-MAX",
        "purchase_order is not validated: 101 characters are accepted";
    PaymentTermsUnchecked => "rcv-payment-terms-end-date-unchecked", "RCV-PAYMENT-TERMS-END-DATE",
        "payment_terms is not validated: term_final.end_date may be any value";
    Create200 => "rcv-create-200", "RCV-CREATE-201",
        "a created receivable is answered 200 instead of 201";
    StatusOutsideSet => "rcv-status-outside-set", "RCV-STATUS-SET",
        "an unsupported based-on transition is answered 412, a status create receivable never uses";
    QuoteResponseMissingField => "rcv-quote-response-missing-updated-at", "RCV-QUOTE-RESPONSE",
        "the quote response lacks updated_at";
    QuoteExpiryDateNotIso => "rcv-quote-expiry-date-not-iso", "RCV-QUOTE-RESPONSE",
        "a quote created with an expiry_date answers it as DD/MM/YYYY instead of an ISO 8601 date";
    EntityBankAccountSet => "rcv-entity-bank-account-set", "RCV-ENTITY-BANK-ACCOUNT-NULL",
        "the quote response's entity_bank_account is an object instead of null";
    DeductionAmountNegative => "rcv-deduction-amount-negative", "RCV-DEDUCTION-AMOUNT-RANGE",
        "the quote response's deduction_amount is -1 instead of an integer >= 0 or null";
    CurrencyNotEchoed => "rcv-response-currency-lowercased", "RCV-RESPONSE-ECHO",
        "the quote response's currency is lowercased (EUR is answered eur)";
    QuoteToInvoiceRefused => "rcv-quote-to-invoice-refused", "RCV-QUOTE-TO-INVOICE",
        "a quote to invoice based-on creation is refused with 409";
    InvoiceToCreditNoteRefused => "rcv-invoice-to-credit-note-refused", "RCV-INVOICE-TO-CREDIT-NOTE",
        "an invoice to credit note based-on creation is refused with 409";
    UnsupportedTransitionAllowed => "rcv-quote-to-credit-note-allowed", "RCV-TRANSITION-UNSUPPORTED",
        "a credit note based on a quote is created (201)";
    Transition400 => "rcv-transition-400", "RCV-TRANSITION-409",
        "an unsupported transition is answered 400 instead of 409";
    BasedOnUnknownAccepted => "rcv-based-on-unknown-accepted", "RCV-BASED-ON-UNKNOWN",
        "a based_on naming no document still creates the document (201)";
    Validation400 => "rcv-validation-400", "RCV-VALIDATION-422",
        "receivable body validation failures are answered 400 with the finance error body";
    // ------------------------------------------------------------ VAT IDs
    VatValueMaxIgnored => "vat-value-max-ignored", "VAT-VALUE-MAX",
        "a 33-character VAT ID value is accepted";
    VatCountryAny => "vat-country-any", "VAT-COUNTRY-ENUM",
        "country is not validated: XX (or any string) is accepted";
    VatTypeAny => "vat-type-any", "VAT-TYPE-ENUM",
        "any VAT ID type string is accepted";
    VatResponseTypeMissing => "vat-response-type-missing", "VAT-RESPONSE",
        "VAT ID objects are answered without their type";
    VatCounterpartWrong => "vat-counterpart-id-wrong", "VAT-COUNTERPART-MATCH",
        "VAT ID objects carry the organization id as counterpart_id";
    VatGetReturnsFirst => "vat-get-returns-first", "VAT-GET-SAME-ID",
        "get counterpart VAT ID answers the counterpart's first VAT ID whatever id is asked";
    VatTypeLost => "vat-roundtrip-type-lost", "VAT-ROUNDTRIP",
        "a created VAT ID is stored with type unknown, so get answers another type than sent";
    VatGetUnknown200 => "vat-get-unknown-200", "VAT-GET-UNKNOWN",
        "get of an unknown VAT ID is answered 200 with an empty object";
    VatCountryLowerCaseAccepted => "vat-country-lower-case-accepted", "VAT-COUNTRY-ENUM",
        "create VAT ID reads country regardless of case: de is accepted and stored as DE";
    // ------------------------------------------------------------ comments
    CommentDatesNotDateTime => "cmt-created-at-unix-seconds", "CMT-RESPONSE",
        "the comment's created_at is an integer of unix seconds instead of a date-time";
    CommentStatusUppercase => "cmt-status-uppercase", "CMT-STATUS-ENUM",
        "the comment's status is ACTIVE instead of active";
    CommentUpdateNotApplied => "cmt-update-not-applied", "CMT-UPDATE-APPLIED",
        "update comment answers the comment as it was before the update";
    CommentTextTrimmed => "cmt-text-trimmed", "CMT-TEXT-VERBATIM",
        "update comment keeps the text with its leading and trailing whitespace trimmed";
    CommentTypesUnchecked => "cmt-update-types-unchecked", "CMT-UPDATE-TYPES",
        "update comment accepts a reply_to_entity_user_id that is not a uuid, and a non-string text";
    CommentUnknown200 => "cmt-unknown-200", "CMT-UNKNOWN",
        "updating an unknown comment answers 200 with a made-up comment";
    // ------------------------------------------------------------ mailbox domains
    DomainSegmentEdgesUnchecked => "mbx-domain-segment-edges-unchecked", "MBX-DOMAIN-PATTERN",
        "a domain segment may start or end with a hyphen (a-.example.com is accepted)";
    DomainLaterSegmentsLoose => "mbx-domain-later-segments-loose", "MBX-DOMAIN-PATTERN",
        "only the first segment of a domain must start and end with a letter or digit (mail.-x.example.com is accepted)";
    DomainCharsetUnchecked => "mbx-domain-charset-unchecked", "MBX-DOMAIN-PATTERN",
        "any non-empty domain string is accepted (under_score.example.com, spaces, ...)";
    MailboxDedicatedIpMissing => "mbx-response-dedicated-ip-missing", "MBX-RESPONSE",
        "the mailbox domain response lacks dedicated_ip";
    DnsIsActiveString => "mbx-dns-is-active-string", "MBX-DNS-RECORD",
        "DNS records carry is_active as the string \"true\"";
    DomainNotEchoed => "mbx-domain-not-echoed", "MBX-DOMAIN-ECHO",
        "the mailbox domain response names mail.<domain> instead of the requested domain";
    DomainAllDigitSegmentRefused => "mbx-domain-all-digit-segment-refused", "GEN-FORMAT-CLASSES",
        "create mailbox domain refuses a segment of digits only (123.example.com), as a hostname check that wants a letter in each label does";
    // ------------------------------------------------------------ deletes
    TagDeleteNotFound => "tag-delete-not-found", "TAG-DELETE",
        "deleting an existing tag answers 404 (the lookup uses the wrong key)";
    TagDeleteIdempotent => "tag-delete-idempotent", "TAG-DELETE-GONE",
        "deleting a tag again answers 204";
    TagDeleteMalformedId => "tag-delete-malformed-id-204", "GEN-REJECT-NOT-2XX",
        "delete tag answers 204 to a tag_id that is no UUID, as a delete of nothing";
    BankAccountDeleteNotFound => "cba-delete-not-found", "CBA-DELETE",
        "deleting an existing counterpart bank account answers 404";
    BankAccountDeleteIdempotent => "cba-delete-idempotent", "CBA-DELETE-GONE",
        "deleting a counterpart bank account again answers 204";
    // ------------------------------------------------------------ events
    EventsPrevKeyMissing => "evt-page-prev-token-missing", "EVT-PAGE-SHAPE",
        "a page of events has no prev_pagination_token member";
    EventDescriptionMissing => "evt-item-description-missing", "EVT-ITEM",
        "events carry no description";
    EventObjectTypeOutsideEnum => "evt-object-type-outside-enum", "EVT-OBJECT-TYPE-ENUM",
        "VAT ID events carry object_type vat_id instead of counterpart_tax_id";
    EventsLimitPlusOne => "evt-limit-plus-one", "EVT-LIMIT-MAX",
        "a page of events holds limit + 1 items";
    EventsLimitClamped => "evt-limit-out-of-range-clamped", "EVT-LIMIT-RANGE-REJECT",
        "a limit outside 1 to 100 or not an integer is clamped or defaulted instead of refused";
    EventsOrderUnknownIgnored => "evt-order-unknown-ignored", "EVT-ORDER-ENUM",
        "an unknown order or sort value is ignored instead of refused";
    EventsDefaultDesc => "evt-default-order-desc", "EVT-ORDER-DEFAULT-ASC",
        "without order, events come in descending order";
    EventsDefaultSortUpdated => "evt-default-sort-updated-at", "EVT-DEFAULT-SORT-CREATED",
        "without sort, events are sorted by their (hidden) updated_at, not created_at";
    EventsDescIgnored => "evt-order-desc-ignored", "EVT-ORDER-DESC",
        "order=desc is ignored: events come ascending";
    EventsTokenHonoursParams => "evt-token-honours-params", "EVT-TOKEN-IGNORES-PARAMS",
        "with pagination_token, limit and order given in the same query override the token's";
    EventsNextCycles => "evt-next-token-cycles", "EVT-FULL-READ-ENDS",
        "the last page of events has a next token that leads back to the first page";
    EventsItemRepeated => "evt-item-repeated-across-pages", "EVT-FULL-READ-ENDS",
        "each page of events after the first repeats the last item of the page before";
    EventsSortedItemSkipped => "evt-sorted-item-skipped", "EVT-PAGE-SIZES-AGREE",
        "with sort in the first query, each next page of events skips one item at the boundary";
    EventsItemSkipped => "evt-item-skipped-at-boundary", "EVT-PAGE-SIZES-AGREE",
        "each next page of events skips one item at the page boundary";
    EventsPageShort => "evt-page-short-before-last", "EVT-PAGES-FULL",
        "every page of events that has a next page holds one item fewer than limit (none skipped)";
    EventsPrevOnFirst => "evt-prev-token-on-first-page", "EVT-PREV-NULL-FIRST",
        "the first page of events has a non-null prev_pagination_token";
    EventsTokenSingleUse => "evt-token-single-use", "EVT-TOKEN-STABLE",
        "an events pagination token works once; used again it is refused";
    EventsTamperedRestarts => "evt-tampered-token-restarts", "EVT-TOKEN-TAMPERED",
        "an events pagination token never issued gives the first page instead of a 4xx";
    EventsThirdPageReversed => "evt-third-page-reversed", "EVT-ORDER-DEFAULT-ASC",
        "pages of events after the second (beyond twice the limit) hold their events in reverse order";
    EventsOldTimesWithoutOffset => "evt-old-created-at-without-offset", "GEN-DATE-TIME-RFC3339",
        "events older than 30 days carry created_at without an offset (2026-01-01T00:00:00, no Z)";
    // ------------------------------------------------------------ velocity controls
    VelocityCreate200 => "vc-create-200", "VC-CREATE-201",
        "a created velocity control is answered 200 instead of 201";
    VelocityCreatedAtMissing => "vc-response-created-at-missing", "VC-RESPONSE",
        "the velocity control response lacks createdAt";
    VelocityBothScopes => "vc-both-scopes-set", "VC-EXACTLY-ONE-SCOPE",
        "a card-scoped control carries organizationId as well as cardId";
    VelocityOrgMissingWithoutHeader => "vc-org-scope-missing-without-header", "VC-ORG-SCOPE",
        "without the organization header an organization-scoped control carries no organizationId";
    VelocityCardDropped => "vc-card-id-dropped", "VC-CARD-SCOPE",
        "a control created with cardId is scoped to the organization (cardId dropped)";
    VelocityForeignCardToOrg => "vc-foreign-card-scoped-to-organization", "VC-CARD-SCOPE",
        "a control on another organization's card is accepted, scoped to the organization acted for (no cardId)";
    VelocityForeignCardAccepted => "vc-foreign-card-accepted", "VC-CARD-ACCESS",
        "a cardId of a card the caller cannot access is accepted";
    VelocityActiveDefaultTrue => "vc-active-default-true", "VC-ACTIVE-DEFAULT-FALSE",
        "active defaults to true when omitted";
    VelocityTransactionUsageAccepted => "vc-transaction-usage-accepted", "VC-TRANSACTION-NO-USAGE",
        "usageLimit is accepted (and answered) with the TRANSACTION window";
    VelocityTransactionUnlimitedAccepted => "vc-transaction-unlimited-accepted", "VC-TRANSACTION-NO-USAGE",
        "usageLimit -1 (unlimited) is taken as no usage limit with the TRANSACTION window, and accepted";
    VelocityTimesWithoutOffset => "vc-times-without-offset", "GEN-DATE-TIME-RFC3339",
        "createdAt and updatedAt are local times without an offset (2026-09-24T10:15:30, no Z)";
    VelocityUnlimitedRejected => "vc-usage-unlimited-rejected", "VC-USAGE-UNLIMITED",
        "usageLimit -1 is refused with 400";
    VelocityWindowAny => "vc-window-any", "VC-WINDOW-ENUM",
        "any velocityWindow string is accepted";
    VelocityAmountString => "vc-amount-limit-string-accepted", "VC-FIELD-TYPES",
        "amountLimit given as a string is accepted, and read as 0 unless it is a number";
    VelocityCurrencyUnchecked => "vc-currency-code-unchecked", "VC-FIELD-TYPES",
        "currencyCode is not validated: \"EURO\" is accepted";
    VelocityDuplicateAccepted => "vc-duplicate-id-accepted", "VC-ID-UNIQUE",
        "a second velocity control with the same id is created (201)";
    VelocityDuplicate400 => "vc-duplicate-id-400", "VC-ID-UNIQUE-409",
        "a duplicate velocity control id is answered 400 instead of 409";
    VelocityIdGenerated => "vc-id-server-generated", "VC-ID-ECHO",
        "the created control's id is a server-generated uuid, not the id sent";
    VelocityAmountMajorUnits => "vc-amount-limit-major-units", "VC-FIELDS-ECHO",
        "the created control's amountLimit is answered divided by 100";
    VelocityMccDropped => "vc-mcc-not-kept", "VC-FIELDS-ECHO",
        "a control created with mcc is answered without it";
    VelocityTransactionCardUsage => "vc-transaction-card-usage-zero", "VC-TRANSACTION-NO-USAGE",
        "a card-scoped TRANSACTION control is answered with usageLimit 0, though none was sent";
    // ------------------------------------------------------------ banking pagination
    BankingSnakeCaseTokens => "bpag-page-snake-case-tokens", "BPAG-PAGE-SHAPE",
        "pages of transactions name their tokens next_pagination_token / prev_pagination_token";
    BankingDefaultLimit30 => "bpag-default-limit-30", "BPAG-DEFAULT-LIMIT-25",
        "without limit a page of transactions holds 30 items";
    BankingLimit101Served => "bpag-limit-101-served", "BPAG-LIMIT-MAX-100",
        "limit 101 is answered with 101 transactions";
    BankingLimit100Refused => "bpag-limit-100-refused", "GEN-LIMIT-INCLUSIVE",
        "list transactions refuses limit=100 with 400: its range applied as 1 to 99";
    BankingLimitClamped => "bpag-limit-out-of-range-clamped", "BPAG-LIMIT-REJECT",
        "a limit above 100 or below 1 is clamped instead of refused";
    BankingNextCycles => "bpag-next-token-cycles", "BPAG-NEXT-NULL-LAST",
        "the last page of transactions has a next token that leads back to the first page";
    BankingItemRepeated => "bpag-item-repeated-across-pages", "BPAG-NEXT-NULL-LAST",
        "each page of transactions after the first repeats the last item of the page before";
    BankingEmptyReadEndless => "bpag-empty-read-endless", "BPAG-NEXT-NULL-LAST",
        "every page of an account without transactions has a next token: its full read never ends";
    BankingPrevOnFirst => "bpag-prev-token-on-first-page", "BPAG-PREV-NULL-FIRST",
        "the first page of transactions has a non-null prevPaginationToken";
    BankingTokenSingleUse => "bpag-token-single-use", "BPAG-TOKEN-REUSABLE",
        "a transactions pagination token works once; used again it is refused with 400";
    BankingTokenExpires => "bpag-token-expires-after-1s", "BPAG-TOKEN-REUSABLE",
        "a transactions pagination token expires one second after it was issued; used later it is refused with 400";
    BankingItemSkipped => "bpag-item-skipped-at-boundary", "BPAG-DEFAULT-ORDER",
        "each next page of transactions skips one item at the page boundary";
    BankingDefaultLimitFirstPageOnly => "bpag-default-limit-first-page-only", "BPAG-DEFAULT-LIMIT-25",
        "without limit the first page of transactions holds 25 items, every page after it 50";
    BankingPrevOnFirstViaToken => "bpag-prev-token-on-first-page-via-token", "BPAG-PREV-NULL-FIRST",
        "the first page of transactions, reached through a token (page 2's previous token), has a non-null prevPaginationToken";
    BankingPrevWrongPage => "bpag-prev-token-wrong-page", "BPAG-PREV-ROUNDTRIP",
        "the prev token is off by one: from page 2 it gives items 2..limit+1";
    BankingTamperedRestarts => "bpag-tampered-token-restarts", "BPAG-TOKEN-TAMPERED",
        "a transactions pagination token never issued gives the first page instead of 400";
    UnknownAccountEmpty => "btx-unknown-account-empty-page", "BTX-UNKNOWN-ACCOUNT",
        "the transactions of an unknown bank account are an empty page (200)";
    // ------------------------------------------------------------ error bodies
    FinErrorBodyFlat => "err-fin-body-flat", "ERR-FIN-BODY",
        "finance errors other than 422 are answered { message } without the error wrapper";
    Fin422LocString => "err-fin-422-loc-string", "ERR-FIN-422-BODY",
        "422 bodies give loc as one dotted string instead of an array of strings";
    BankErrorTitleMissing => "err-bank-body-title-missing", "ERR-BANK-BODY",
        "embedded banking error bodies lack title";
    BankErrorStatus400 => "err-bank-status-always-400", "ERR-BANK-STATUS-MATCH",
        "embedded banking error bodies always say status 400, whatever the HTTP status";
    Fin403MessageNumber => "err-fin-403-message-number", "ERR-FIN-BODY",
        "create VAT ID on another organization's counterpart is refused with 403 whose error.message is a number (the status)";
    // ------------------------------------------------------------ issue 29, classes 5 to 8
    BasedOnForeignAccepted => "rcv-based-on-foreign-accepted", "RCV-BASED-ON-UNKNOWN",
        "a based-on creation finds its source in any organization: another organization's quote gives an invoice";
    InvoiceFromInvoiceAllowed => "rcv-invoice-from-invoice-allowed", "RCV-TRANSITION-UNSUPPORTED",
        "an invoice based on an invoice is created (the transition table states a quote as its source)";
    VelocityDuplicateRace => "vc-duplicate-id-race", "VC-ID-UNIQUE",
        "create velocity control checks the id before a pause and records it after: two creates with one id at the same moment both succeed";
    VelocityIdUniquePerScope => "vc-id-unique-per-scope", "VC-ID-UNIQUE",
        "velocity control ids are unique per scope only: a card-scoped control may reuse an organization-scoped control's id";
    VelocityIdLowercased => "vc-id-lowercased", "VC-ID-ECHO",
        "the created control's id is the id sent in lower case";
    OrgHeaderUpperCaseRejected => "bank-org-header-upper-case-rejected", "BANK-ORG-HEADER-UUID-CASE",
        "an embedded banking organization header holding an upper-case UUID is answered 400";
    DomainShortSegmentsRejected => "mbx-one-character-segments-rejected", "MBX-DOMAIN-ACCEPTED",
        "create mailbox domain refuses a domain with a segment of one character (a.example.com)";
    TagIdsNullAccepted => "rcv-tag-ids-null-accepted", "RCV-FIELD-TYPES",
        "create receivable reads tag_ids: null as the empty list";
    DeductionsTenRefused => "rcv-deductions-ten-refused", "GEN-LIMIT-INCLUSIVE",
        "create receivable refuses 10 deductions: its limit applied as at most 9";
    IntegerFractionTruncated => "gen-integer-fraction-truncated", "GEN-INTEGER-FRACTION",
        "create receivable reads withholding_tax_rate 100.5 as 100, as a lax binder does";
    // ------------------------------------------------------------ issue 29, banking tenancy
    BankTenantIgnored => "bank-tenant-header-ignored", "BANK-TENANT",
        "the banking area checks the owner of an account or a card against the token's own organization, not the one the organization header names";
    VelocityOrgFromToken => "vc-org-scope-from-token", "VC-ORG-SCOPE",
        "an organization-scoped control is scoped to the token's own organization, not the one the organization header names";
    // ------------------------------------------------------------ issue 39, sequences (the explorer)
    VatReadShowsNewest => "vat-read-shows-newest-after-two-creates", "EXP-READ-SHOWS-WRITE",
        "get counterpart VAT ID answers, for a VAT ID after which two more were created for its counterpart, the newest one's value";
    VelocityDuplicateAfterCreates => "vc-duplicate-accepted-after-three-creates", "EXP-ID-UNIQUE-AFTER-WRITES",
        "a velocity control id is checked against the organization's last three creates only: after three other creates it is accepted again";
    BankingDeepPageSkipped => "bpag-deep-page-skipped", "EXP-FULL-READ-EVERY-ITEM",
        "with a limit from 8 to 24, the next token of the ninth page of transactions and of every later one skips a page";
    EventsTokenAnyOrganization => "evt-token-any-organization", "EXP-TOKEN-WHERE-ISSUED",
        "an events pagination token is accepted under another organization's header, and gives the issuing organization's next page";
    EventsDescDropsEarlyWrite => "evt-desc-drops-oldest-write-after-six", "EXP-EVENTS-BOTH-ORDERS",
        "once an organization has six events of writes, a descending read of its events leaves out the oldest of them";
    // ------------------------------------------------------------ issue 39, wire shapes (the explorer)
    CharsetBodyAnsweredText => "gen-charset-body-answered-text", "GEN-JSON-BODY",
        "create receivable refuses a body whose content type carries a charset (application/json; charset=utf-8) with 415 and a plain-text body";
    UnknownNullAccepted => "rcv-unknown-null-property-accepted", "RCV-UNKNOWN-PROPS",
        "every receivable body shape ignores an unknown property whose value is null, as a binder that drops nulls before it checks";
    NoTokenBodyFirst => "auth-fin-no-token-invalid-body-422", "AUTH-FIN-MISSING-401",
        "create receivable validates its body before it looks for a token: a request with no token and an invalid body is answered 422";
    LargeBodyBareRefusal => "vc-large-body-refused-bare", "ERR-BANK-BODY",
        "create velocity control refuses a body over 512 KiB with 413 and {\"message\": ...}, not the banking error body";
    EventsTokenParamsLater => "evt-token-params-honoured-later", "EXP-TOKEN-LATER-IGNORES-PARAMS",
        "an events token used once its organization has written three more events than when its first query was made lets the query's own limit and order override its own";
    VatLimitCutAfterWrites => "vat-value-at-limit-read-cut-after-writes", "EXP-READ-SHOWS-WRITE",
        "a VAT ID whose value is at its stated limit of 32 characters is read back cut to 31 once another VAT ID was created for its counterpart after it";
    NoAcceptAnsweredCsv => "gen-no-accept-answered-csv", "GEN-JSON-BODY",
        "list events answers its page as text/csv when the request carries no Accept header at all (a server's own default type for a client that names none)";
    // ------------------------------------------------------------ issue 52, deeper paths (the explorer)
    BankingPrevPageNextSkips => "bpag-prev-page-next-skips", "EXP-PAGES-BOTH-WAYS",
        "a page of transactions reached by a prevPaginationToken answers a nextPaginationToken that skips a page (limit items past the page right after it)";
    EventsLimitOneFirstPageEnds => "evt-limit-one-first-page-ends", "EXP-EVENTS-BOTH-ORDERS",
        "list events at limit=1 without a pagination token answers next_pagination_token null, though the organization has more events";
    BankingLimit100DropsLast => "bpag-limit-100-drops-last", "EXP-FULL-READ-EVERY-ITEM",
        "list transactions at limit=100 answers each full page with its first 99 items only, its next token still leading past the 100th";
    EventsLeakAfterEightWrites => "evt-tenant-leak-after-eight-writes", "FIN-TENANT-EVENTS",
        "once an organization has eight events of writes, a list of another organization's events also holds its newest event";
    VelocityRefusedTakesId => "vc-refused-create-takes-id", "EXP-ID-FREE-AFTER-REFUSAL",
        "a create velocity control refused (4xx) once its body parsed still takes the body's id: a later valid create with it is answered 409";
    VelocityIdAcrossOrganizations => "vc-id-unique-across-organizations", "EXP-ID-PER-ORGANIZATION",
        "velocity control ids are checked across organizations: an id a control of another organization holds is answered 409";
    CreatedVatIdRefused => "rcv-created-vat-id-refused", "EXP-CREATED-REFERENCE",
        "create receivable answers 404 to a quote or invoice whose counterpart_vat_id_id names a VAT ID created through the API (the seeded ones pass)";
    TagDeleteDeletesDerivedInvoices => "tag-delete-deletes-derived-invoices", "TAG-DETACH",
        "deleting a tag deletes the invoices based on a quote that carried it (a credit note based on one then finds no source: 404)";
    TransactionsOrderBesideToken => "btx-order-honoured-beside-token", "BPAG-NO-GLOBAL-ORDER",
        "list transactions honours order=desc sent beside a pagination token: the first page keeps the default order, the pages after it are counted from the newest";
    // ------------------------------------------------------------ response fields and later reads
    FileLanguageName => "rcv-file-language-name", "RCV-FILE-LANGUAGE-CODE",
        "the quote response's file_language names the language (English) instead of giving its code";
    DedicatedIpHostName => "mbx-dedicated-ip-host-name", "MBX-DEDICATED-IP",
        "the mailbox domain's dedicated_ip is a host name (outbound.mail.invalid), not an IP address";
    DocumentIdBeforeIssue => "rcv-document-id-before-issue", "RCV-DOCUMENT-ID-ON-ISSUE",
        "a quote created without document_id is answered with a generated one (Q-000123) while not issued (issue_date null)";
    SubtotalTaxAdded => "rcv-discounted-subtotal-tax-added", "RCV-DISCOUNTED-SUBTOTAL",
        "a quote's discounted_subtotal has 19% tax added to its line items' total";
    UsageUnlimitedReadNull => "vc-usage-unlimited-read-null", "VC-USAGE-UNLIMITED",
        "a control created with usageLimit -1 (unlimited) is answered with usageLimit null";
    TagDeleteDeletesTagged => "tag-delete-deletes-tagged-receivables", "TAG-DETACH",
        "deleting a tag deletes the receivables that carried it (a based-on creation from one then finds no source: 404)";
    TransactionsOrderHonoured => "btx-order-param-honoured", "BPAG-NO-GLOBAL-ORDER",
        "list transactions honours order=desc on a first page: the account's transactions newest last come first";
    // ------------------------------------------------------------ value classes
    IntegerFormsRefused => "int-forms-refused", "GEN-INTEGER-FORMS",
        "create velocity control and create receivable refuse an integer written 1.0 or 1e2 (a JSON number serde_json holds as a float), as a strict integer binder does";
    VelocityAmountWraps => "vc-amount-limit-wraps", "GEN-INTEGER-EXACT",
        "create velocity control reads amountLimit modulo 2^64 into a signed 64-bit word: 2^63 is answered -2^63, 2^64 is answered 0 (201)";
    WithholdingWraps => "rcv-withholding-wraps", "RCV-WITHHOLDING-RANGE",
        "create receivable reads withholding_tax_rate modulo 2^64 into a signed 64-bit word, so 2^64 is read as 0 and accepted";
    TagIdsEmptyRefused => "rcv-tag-ids-empty-refused", "GEN-DEFAULT-ACCEPTED",
        "create receivable refuses tag_ids: [] (its stated default) with 422";
    VelocityActiveFalseRefused => "vc-active-false-refused", "GEN-DEFAULT-ACCEPTED",
        "create velocity control refuses an explicit active: false (its stated default) with 400";
    NulServerError => "rcv-nul-500", "GEN-NO-5XX",
        "create receivable answers 500 when a string of the body holds U+0000, as a store whose text columns refuse it fails";
    CaseAliasesAccepted => "rcv-camel-case-aliases", "RCV-UNKNOWN-PROPS",
        "receivable bodies read camelCase, PascalCase and kebab-case spellings of known properties (tradeName, TradeName, trade-name) as those properties";
    FooterRefused => "rcv-footer-refused", "GEN-OPTIONAL-ACCEPTED",
        "create receivable refuses a quote or invoice body carrying footer (a stated optional string) as an unknown property (422)";
    PriceZeroNan => "rcv-price-zero-nan", "JSON-NO-NAN",
        "a created quote or invoice whose line item has product.price.value 0 answers that price as NaN";
    VelocityLaxNumericStrings => "vc-lax-numeric-strings", "GEN-LAX-BINDING",
        "create velocity control reads amountLimit given as a string of digits (\"3\") as that number, as a lax binder does (201)";
    WhitespaceRefused => "rcv-whitespace-refused", "GEN-VALUE-CLASSES",
        "create receivable refuses a string field (memo, footer, trade_name, ...) that is whitespace only (422), as a binder that strips and then wants a value does";
    RightToLeftRefused => "rcv-rtl-refused", "GEN-VALUE-CLASSES",
        "create receivable refuses a string field holding Hebrew or Arabic letters (422), as a Latin-only text check does";
    PartnerMetadataEmptyRefused => "rcv-partner-metadata-empty-refused", "GEN-VALUE-CLASSES",
        "create receivable refuses partner_metadata: {} (422)";
    LengthNfdCounted => "vat-length-nfd-counted", "GEN-LENGTH-CODE-POINTS",
        "create VAT ID counts the length of value after NFD decomposition (a precomposed Latin letter, U+00C0 to U+017F, counts 2), so 32 characters of é are refused";
    QuantityZeroRefused => "rcv-quantity-zero-refused", "GEN-VALUE-CLASSES",
        "create receivable refuses a line item whose quantity is 0 (422)";
}

impl Fault {
    /// Every fault, in declaration order.
    pub fn all() -> &'static [Fault] {
        ALL
    }

    /// The fault with this kebab-case name.
    pub fn from_name(name: &str) -> Option<Fault> {
        ALL.iter().copied().find(|f| f.name() == name)
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A fault name that names no fault.
#[derive(Debug, thiserror::Error)]
#[error("unknown fault `{0}`; `covenant list faults` prints the valid names")]
pub struct UnknownFault(pub String);

/// The faults switched on in one server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultSet {
    bits: [u64; 4],
}

impl FaultSet {
    /// No fault: the clean reference.
    pub fn none() -> FaultSet {
        FaultSet::default()
    }

    /// Exactly one fault.
    pub fn only(fault: Fault) -> FaultSet {
        let mut set = FaultSet::none();
        set.insert(fault);
        set
    }

    /// The faults with these names; an unknown name is an error naming it.
    pub fn from_names<I, S>(names: I) -> Result<FaultSet, UnknownFault>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut set = FaultSet::none();
        for name in names {
            let name = name.as_ref();
            let fault = Fault::from_name(name).ok_or_else(|| UnknownFault(name.to_owned()))?;
            set.insert(fault);
        }
        Ok(set)
    }

    pub fn insert(&mut self, fault: Fault) {
        let i = fault as usize;
        self.bits[i / 64] |= 1 << (i % 64);
    }

    /// Whether this fault is switched on. Asked while a request is served, it notes the
    /// request's route as a site of the fault (see [`Asked`]), whether the fault is on or not.
    #[inline]
    pub fn has(&self, fault: Fault) -> bool {
        let _ = SITE.try_with(|site| site.note(fault));
        self.contains(fault)
    }

    /// Whether this fault is switched on, noting nothing.
    fn contains(&self, fault: Fault) -> bool {
        let i = fault as usize;
        self.bits[i / 64] & (1 << (i % 64)) != 0
    }

    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|b| *b == 0)
    }

    /// The faults switched on, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = Fault> + '_ {
        ALL.iter().copied().filter(|f| self.contains(*f))
    }
}

tokio::task_local! {
    /// The faults asked while one request is served: a bit each, set without a lock, so that
    /// `has` stays a few instructions on the handlers' path; its server's [`Asked`] takes them
    /// once the request is served.
    static SITE: AskedInRequest;
}

/// The faults asked during one request, as bits.
#[derive(Default)]
struct AskedInRequest([AtomicU64; 4]);

impl AskedInRequest {
    fn note(&self, fault: Fault) {
        let i = fault as usize;
        self.0[i / 64].fetch_or(1 << (i % 64), Ordering::Relaxed);
    }

    fn faults(&self) -> impl Iterator<Item = Fault> + '_ {
        let bits = self.0.each_ref().map(|b| b.load(Ordering::Relaxed));
        let set = FaultSet { bits };
        ALL.iter().copied().filter(move |f| set.contains(*f))
    }
}

/// Where each fault was asked about while a server served requests: the route templates (as
/// the router names them) of the requests during which a handler asked `faults.has(fault)`,
/// whether the fault was on or not. A clean server's record says which requests can meet a
/// fault at all, as a coverage run tells a mutation tester which tests reach a mutation; the
/// self-test reads it. A fault asked outside any route (the fallback for unknown paths) is
/// noted under `?`.
#[derive(Debug, Clone, Default)]
pub struct Asked(Arc<Mutex<BTreeMap<Fault, BTreeSet<String>>>>);

impl Asked {
    /// Runs `serve` (the serving of one request on `route`) noting the faults it asks about.
    pub async fn serve<F: std::future::Future>(&self, route: &str, serve: F) -> F::Output {
        let (output, site) = SITE
            .scope(AskedInRequest::default(), async {
                let output = serve.await;
                (output, SITE.with(|site| site.faults().collect::<Vec<_>>()))
            })
            .await;
        if !site.is_empty() {
            let mut sites = self.0.lock().unwrap_or_else(|e| e.into_inner());
            for fault in site {
                let routes = sites.entry(fault).or_default();
                if !routes.contains(route) {
                    routes.insert(route.to_owned());
                }
            }
        }
        output
    }

    /// The routes on which each fault was asked about so far.
    pub fn sites(&self) -> BTreeMap<Fault, BTreeSet<String>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The text `covenant list faults` prints: name, rule, description, then a count.
pub fn render_list() -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for fault in Fault::all() {
        let _ = writeln!(
            out,
            "{:<42} {:<30} {}",
            fault.name(),
            fault.rule(),
            fault.description()
        );
    }
    let _ = writeln!(out, "\n{} faults", Fault::all().len());
    out
}
