//! The rules the explorer judges, by the part of it that judges them: the model's
//! post-conditions (shrunk), a wire shape's request (one request, shown as it is) and a step that
//! uses up a fixture (one step, shown as it is).

/// A VAT ID read back under its organization shows what was written.
pub const READ_SHOWS_WRITE: &str = "EXP-READ-SHOWS-WRITE";
/// Ids stay unique however creates interleave.
pub const ID_UNIQUE: &str = "EXP-ID-UNIQUE-AFTER-WRITES";
/// A full read of transactions holds every item once, at any page size and depth.
pub const FULL_READ: &str = "EXP-FULL-READ-EVERY-ITEM";
/// A token works only under the organization it was issued under.
pub const TOKEN_WHERE_ISSUED: &str = "EXP-TOKEN-WHERE-ISSUED";
/// A token used later, after other writes, with other query parameters still ignores them.
pub const TOKEN_LATER: &str = "EXP-TOKEN-LATER-IGNORES-PARAMS";
/// An event a full read held stays in every later full read, in either order.
pub const BOTH_ORDERS: &str = "EXP-EVENTS-BOTH-ORDERS";
/// A VAT ID of the first organization is not readable under the other (the tenancy rule the
/// hand-written cases judge too).
pub const ISOLATION: &str = "FIN-ORG-ISOLATION";
/// The events of one organization are never listed under the other.
pub const TENANT_EVENTS: &str = "FIN-TENANT-EVENTS";

/// Walking transactions back by previous tokens and forward again gives each page its items.
pub const PAGES_BOTH_WAYS: &str = "EXP-PAGES-BOTH-WAYS";
/// An id only a refused create named is accepted as a fresh one.
pub const ID_FREE_AFTER_REFUSAL: &str = "EXP-ID-FREE-AFTER-REFUSAL";
/// An id only another organization took is accepted as a fresh one.
pub const ID_PER_ORGANIZATION: &str = "EXP-ID-PER-ORGANIZATION";
/// A quote may name a VAT ID the API created for its counterpart.
pub const CREATED_REFERENCE: &str = "EXP-CREATED-REFERENCE";
/// List transactions states no sort or order parameter: a full read with them is the default.
pub const NO_GLOBAL_ORDER: &str = "BPAG-NO-GLOBAL-ORDER";
/// Deleting a tag detaches it and deletes nothing else.
pub const TAG_DETACH: &str = "TAG-DETACH";

/// An unknown property, of any JSON type, is refused in every receivable body shape.
pub const UNKNOWN_PROPS: &str = "RCV-UNKNOWN-PROPS";

/// The rules the requests of the wire shapes judge besides the generic checks: each breach is
/// one request's, shown under its rule without a shrink.
pub const SHAPE_RULES: [&str; 4] = [
    UNKNOWN_PROPS,
    "AUTH-FIN-MISSING-401",
    "AUTH-FIN-INVALID-401",
    "BANK-ORG-HEADER-MALFORMED-400",
];

/// The rules a step that uses up a fixture of the profile judges: its breach is shown as that
/// one step, without a shrink (each replay would take another fixture).
pub const STEP_RULES: [&str; 1] = [TAG_DETACH];

/// The rules the model's post-conditions judge: a breach of one of them is shrunk.
pub const MODEL_RULES: [&str; 13] = [
    READ_SHOWS_WRITE,
    ID_UNIQUE,
    FULL_READ,
    TOKEN_WHERE_ISSUED,
    TOKEN_LATER,
    BOTH_ORDERS,
    ISOLATION,
    TENANT_EVENTS,
    PAGES_BOTH_WAYS,
    ID_FREE_AFTER_REFUSAL,
    ID_PER_ORGANIZATION,
    CREATED_REFERENCE,
    NO_GLOBAL_ORDER,
];
