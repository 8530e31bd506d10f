//! The fields of the three create-receivable bodies, each with the JSON type the spec states for
//! it, whether it may be `null`, and the fault that loosens its check: the table `validate`
//! walks, one line per stated field.

use crate::fault::Fault;

/// What a field must hold.
#[derive(Debug, Clone, Copy)]
pub(super) enum Ty {
    Str {
        min: usize,
        max: usize,
    },
    Uuid,
    Date,
    Uri {
        max: usize,
    },
    Bool,
    Int {
        min: i64,
        max: i64,
    },
    Array {
        min: usize,
        max: usize,
    },
    UuidArray,
    Object,
    Enum(&'static [&'static str]),
    PaymentTerms,
    /// Three capital letters, the ISO 4217 shape.
    Currency,
    /// Line items: objects whose sample fields have their sample types (fields beyond the
    /// sample are not shown, so they pass).
    LineItems,
}

/// A body field: its type, whether null is allowed, and the fault that switches its check off.
pub(super) struct Field {
    pub(super) name: &'static str,
    pub(super) ty: Ty,
    pub(super) nullable: bool,
    pub(super) relax: Option<Fault>,
}

pub(super) const fn field(
    name: &'static str,
    ty: Ty,
    nullable: bool,
    relax: Option<Fault>,
) -> Field {
    Field {
        name,
        ty,
        nullable,
        relax,
    }
}

pub(super) const ANY_STR: Ty = Ty::Str {
    min: 0,
    max: usize::MAX,
};

pub(super) const REQUIRED: &[&str] = &["type", "currency", "line_items", "counterpart_id"];

/// Fields of both the quote and the invoice body (type handled apart).
pub(super) const SHARED: &[Field] = &[
    field(
        "currency",
        Ty::Currency,
        false,
        Some(Fault::CurrencyAnyString),
    ),
    field("line_items", Ty::LineItems, false, None),
    field("counterpart_id", Ty::Uuid, false, None),
    field(
        "attachments",
        Ty::Array {
            min: 1,
            max: usize::MAX,
        },
        true,
        Some(Fault::AttachmentsEmptyAccepted),
    ),
    field(
        "bank_account_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "bank_account_type",
        Ty::Enum(&["INTERNAL", "EXTERNAL", "BANK_DETAILS"]),
        true,
        Some(Fault::BankAccountTypeAny),
    ),
    field("commercial_condition_description", ANY_STR, true, None),
    field(
        "counterpart_billing_address_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "counterpart_shipping_address_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "counterpart_business_type",
        Ty::Str { min: 0, max: 50 },
        true,
        Some(Fault::BusinessTypeMaxIgnored),
    ),
    field(
        "counterpart_vat_id_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "entity_vat_id_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "deductions",
        Ty::Array { min: 0, max: 10 },
        true,
        Some(Fault::DeductionsMaxIgnored),
    ),
    field("discount", Ty::Object, true, None),
    field(
        "document_id",
        Ty::Str { min: 1, max: 100 },
        true,
        Some(Fault::DocumentIdLenIgnored),
    ),
    field("document_rendering", Ty::Object, true, None),
    field("entity", Ty::Object, true, None),
    field("footer", ANY_STR, true, None),
    field("memo", ANY_STR, true, None),
    field("partner_metadata", Ty::Object, false, None),
    field(
        "project_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field("tag_ids", Ty::UuidArray, false, None),
    field("tax_exempt", Ty::Bool, true, Some(Fault::FieldTypesLoose)),
    field("tax_exemption_rationale", ANY_STR, true, None),
    field("tax_mode", ANY_STR, true, None),
    field(
        "trade_name",
        Ty::Str { min: 0, max: 255 },
        true,
        Some(Fault::TradeNameMaxIgnored),
    ),
    field(
        "withholding_tax_rate",
        Ty::Int { min: 0, max: 10000 },
        true,
        Some(Fault::WithholdingRangeIgnored),
    ),
];

pub(super) const QUOTE_ONLY: &[Field] = &[
    field(
        "expiry_date",
        Ty::Date,
        true,
        Some(Fault::ExpiryDateUnchecked),
    ),
    field(
        "quote_accept_page_url",
        Ty::Uri { max: usize::MAX },
        true,
        Some(Fault::QuoteAcceptUrlUnchecked),
    ),
    field("signature_required", Ty::Bool, true, None),
];

pub(super) const INVOICE_ONLY: &[Field] = &[
    field(
        "fulfillment_date",
        Ty::Date,
        true,
        Some(Fault::FulfillmentDateUnchecked),
    ),
    field(
        "overdue_reminder_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "payment_reminder_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "payment_page_url",
        Ty::Uri { max: 2083 },
        true,
        Some(Fault::PaymentUrlLenIgnored),
    ),
    field(
        "payment_terms",
        Ty::PaymentTerms,
        true,
        Some(Fault::PaymentTermsUnchecked),
    ),
    field(
        "payment_terms_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "purchase_order",
        Ty::Str { min: 0, max: 100 },
        true,
        Some(Fault::PurchaseOrderMaxIgnored),
    ),
];

pub(super) const BASED_ON_FIELDS: &[&str] = &["type", "based_on", "tag_ids"];
