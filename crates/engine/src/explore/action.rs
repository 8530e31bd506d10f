//! The commands a sequence is made of, and the organization each acts for.

use crate::schema::OperationId;

/// The organization a command acts for: the profile's first, or its other one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Org {
    First,
    Other,
}

impl Org {
    pub fn index(self) -> usize {
        match self {
            Org::First => 0,
            Org::Other => 1,
        }
    }

    /// The organization that is not this one.
    pub fn other(self) -> Org {
        match self {
            Org::First => Org::Other,
            Org::Other => Org::First,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Org::First => "the first organization",
            Org::Other => "the other organization",
        }
    }
}

/// One command of a sequence: what it does follows from the model when it runs (a read of the
/// n-th VAT ID created, a token issued earlier), so that any subsequence is a sequence too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Creates a velocity control whose id is the sequence's `slot`-th: again when the slot was
    /// taken in that organization, and then it must be refused.
    CreateVelocity {
        org: Org,
        slot: u8,
    },
    /// Creates a VAT ID for the profile's counterpart, under the first organization.
    CreateVat,
    /// Reads the `nth` VAT ID created (modulo their number) under `org`.
    ReadVat {
        org: Org,
        nth: u8,
    },
    CreateQuote,
    /// An invoice based on the last quote created.
    InvoiceFromQuote,
    /// A credit note based on the last invoice created from a quote.
    CreditNoteFromInvoice,
    CreateMailbox,
    UpdateComment,
    /// A full read of `org`'s events at `limit`, ascending or descending.
    ReadEvents {
        org: Org,
        limit: u8,
        desc: bool,
    },
    /// A full read of the profile's account's transactions at `limit`.
    ReadTransactions {
        limit: u8,
    },
    /// The `nth` events token issued under the first organization, sent under the other.
    CarryToken {
        nth: u8,
    },
    /// The first page of the first organization's events at `limit`, sorted by `created_at`
    /// ascending: its next token is kept for a later [`Action::TokenWithParams`].
    IssueToken {
        limit: u8,
    },
    /// The `nth` ascending events token issued under the first organization, sent alone and
    /// then with other query parameters (see [`OTHER_PARAMS`], by `kind`): the same page.
    TokenWithParams {
        nth: u8,
        kind: u8,
    },
    /// A receivable body of shape `shape` (0 quote, 1 invoice, 2 based-on) with an unknown
    /// property whose value is of JSON type `kind` (0 null, 1 boolean, 2 number, 3 string,
    /// 4 array, 5 object): refused, with the finance error body.
    UnknownProperty {
        shape: u8,
        kind: u8,
    },
    /// A request breaking two stated rules at once (see [`BREACHES`]): its answer must be one
    /// the spec allows for each, and the one it names for a cause where it names one.
    TwoBreaches {
        kind: u8,
    },
    /// A velocity control whose name is a mebibyte long: the spec states no payload limit, so
    /// acceptance is fine and a refusal carries the banking error body.
    LargeBody,
    /// Reads the account's transactions at `limit` forward to page `depth` + 1, walks back to
    /// the first page by previous tokens, and forward again by next tokens from the pages the
    /// walk back reached: each page holds what the forward read held at its place.
    WalkBack {
        limit: u8,
        depth: u8,
    },
    /// The first pages of the first organization's events at limit=1 (the smallest page),
    /// ascending, up to five: a read that ends there holds every event a full read held.
    FirstPagesOfOne,
    /// A velocity control create under `org` with the id of `slot` and a body breaking a stated
    /// rule (a usageLimit with the TRANSACTION window): refused, it takes no id.
    RefusedVelocity {
        org: Org,
        slot: u8,
    },
    /// A quote naming the last VAT ID the sequence created as its counterpart_vat_id_id.
    QuoteWithCreatedVat,
    /// Full reads of the account's transactions at `limit`, without and then with query
    /// parameters list transactions does not state (see [`UNSTATED_PARAMS`], by `kind`) on
    /// every page: the same items in the same order.
    ReadTransactionsWith {
        limit: u8,
        kind: u8,
    },
    /// Takes a deletable tag of the profile; creates a quote carrying it and one without it, and
    /// an invoice based on each; deletes the tag; then a credit note based on each invoice: the
    /// one made from the tagged quote is not refused as if it were gone.
    DetachTag,
}

/// The query parameters [`Action::ReadTransactionsWith`] sends, by kind: the area has no
/// global sort or order parameters and list transactions states none of its own.
pub const UNSTATED_PARAMS: [&[(&str, &str)]; 2] = [
    &[("order", "desc")],
    &[("sort", "createdAt"), ("order", "desc")],
];

/// The pairs of breaches [`Action::TwoBreaches`] sends, by kind.
pub const BREACHES: [&str; 4] = [
    "no token and an invalid receivable body",
    "an invalid token and an invalid receivable body",
    "a malformed banking organization header and an invalid velocity control body",
    "no token and a malformed banking organization header",
];

/// The other query parameters [`Action::TokenWithParams`] sends beside a token, by kind: each
/// differs from every first query a kept token came from (`sort=created_at`, ascending).
pub const OTHER_PARAMS: [&[(&str, &str)]; 3] = [
    &[("limit", "3")],
    &[("sort", "created_at"), ("order", "desc")],
    &[("order", "desc"), ("limit", "7")],
];

impl Action {
    /// Whether it creates or updates something.
    pub fn writes(self) -> bool {
        !matches!(
            self,
            Action::ReadVat { .. }
                | Action::ReadEvents { .. }
                | Action::ReadTransactions { .. }
                | Action::CarryToken { .. }
                | Action::IssueToken { .. }
                | Action::TokenWithParams { .. }
                | Action::WalkBack { .. }
                | Action::FirstPagesOfOne
                | Action::ReadTransactionsWith { .. }
        )
    }

    /// The operations its requests are of.
    pub fn operations(self) -> &'static [OperationId] {
        use OperationId::*;
        match self {
            Action::CreateVelocity { .. } => &[CreateVelocityControl],
            Action::CreateVat => &[CreateVatId],
            Action::ReadVat { .. } => &[GetVatId],
            Action::CreateQuote | Action::InvoiceFromQuote | Action::CreditNoteFromInvoice => {
                &[CreateReceivable]
            }
            Action::CreateMailbox => &[CreateMailboxDomain],
            Action::UpdateComment => &[UpdateComment],
            Action::ReadEvents { .. }
            | Action::CarryToken { .. }
            | Action::IssueToken { .. }
            | Action::TokenWithParams { .. } => &[ListEvents],
            Action::ReadTransactions { .. } => &[ListTransactions],
            Action::UnknownProperty { .. } => &[CreateReceivable],
            Action::TwoBreaches { .. } => &[CreateReceivable, CreateVelocityControl],
            Action::LargeBody | Action::RefusedVelocity { .. } => &[CreateVelocityControl],
            Action::WalkBack { .. } | Action::ReadTransactionsWith { .. } => &[ListTransactions],
            Action::FirstPagesOfOne => &[ListEvents],
            Action::QuoteWithCreatedVat => &[CreateReceivable],
            Action::DetachTag => &[CreateReceivable, DeleteTag],
        }
    }

    /// What it does, in a few words, for the script.
    pub fn describe(self) -> String {
        match self {
            Action::CreateVelocity { org, slot } => {
                format!("create velocity control #{slot} under {}", org.name())
            }
            Action::CreateVat => "create a VAT ID for the counterpart".to_owned(),
            Action::ReadVat { org, nth } => {
                format!("read VAT ID #{nth} (of those created) under {}", org.name())
            }
            Action::CreateQuote => "create a quote".to_owned(),
            Action::InvoiceFromQuote => "create an invoice based on the last quote".to_owned(),
            Action::CreditNoteFromInvoice => {
                "create a credit note based on the last invoice".to_owned()
            }
            Action::CreateMailbox => "create a mailbox domain".to_owned(),
            Action::UpdateComment => "update the profile's comment".to_owned(),
            Action::ReadEvents { org, limit, desc } => format!(
                "read every event of {} at limit={limit}, {}",
                org.name(),
                if desc { "descending" } else { "ascending" }
            ),
            Action::ReadTransactions { limit } => {
                format!("read every transaction of the account at limit={limit}")
            }
            Action::CarryToken { nth } => format!(
                "send events token #{nth} of the first organization under the other organization"
            ),
            Action::IssueToken { limit } => format!(
                "read the first page of the first organization's events at limit={limit} and \
                 keep its next token"
            ),
            Action::TokenWithParams { nth, kind } => {
                let pairs = OTHER_PARAMS[kind as usize % OTHER_PARAMS.len()];
                let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!(
                    "send ascending events token #{nth} of the first organization alone, then \
                     with {}",
                    query.join("&")
                )
            }
            Action::UnknownProperty { shape, kind } => format!(
                "create {} with an unknown property whose value is {}",
                ["a quote", "an invoice", "a receivable based on a quote"][shape as usize % 3],
                [
                    "null",
                    "a boolean",
                    "a number",
                    "a string",
                    "an array",
                    "an object"
                ][kind as usize % 6]
            ),
            Action::TwoBreaches { kind } => {
                format!("send {}", BREACHES[kind as usize % BREACHES.len()])
            }
            Action::LargeBody => "create a velocity control whose name is 1 MiB long".to_owned(),
            Action::WalkBack { limit, depth } => format!(
                "read the transactions at limit={limit} to page {}, walk back to the first page \
                 by previous tokens and forward again by next tokens",
                u32::from(depth) + 1
            ),
            Action::FirstPagesOfOne => "read the first organization's events at limit=1, \
                 ascending, up to five pages"
                .to_owned(),
            Action::RefusedVelocity { org, slot } => format!(
                "create velocity control #{slot} under {} with a usageLimit and the TRANSACTION \
                 window (refused)",
                org.name()
            ),
            Action::QuoteWithCreatedVat => {
                "create a quote naming the last VAT ID created as its counterpart_vat_id_id"
                    .to_owned()
            }
            Action::ReadTransactionsWith { limit, kind } => {
                let pairs = UNSTATED_PARAMS[kind as usize % UNSTATED_PARAMS.len()];
                let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!(
                    "read every transaction at limit={limit}, then again with {} on every page",
                    query.join("&")
                )
            }
            Action::DetachTag => "take a deletable tag; create a quote carrying it, one \
                 without it and an invoice based on each; delete the tag; create a credit note \
                 based on each invoice"
                .to_owned(),
        }
    }
}
