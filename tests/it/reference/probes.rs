//! For every fault, a probe that sees the deviation with the fault on and does not see it on
//! the clean server. The probe is one exhaustive `match`, so a new fault without a probe does
//! not compile.

mod deeper;

use super::client::{client, is_uuid, server, without, Ctx, PagedList, Resp};
use covenant::reference::{Fault, FaultSet};
use reqwest::Method;
use serde_json::json;
use std::sync::Arc;

/// Whether the deviation of `fault` is visible on the server behind `c`.
async fn probe(c: &Ctx, fault: Fault) -> bool {
    use Fault::*;
    let created = |r: &Resp| r.status == 201;
    let long = |n: usize| "x".repeat(n);
    match fault {
        NonJsonBody => {
            let id = c.vat().await.get("id").as_str().unwrap().to_owned();
            let r = c.get_vat(&id, c.org()).await;
            r.status == 200 && r.json.is_none()
        }
        JsonAsTextPlain => c.events("").await.content_type.starts_with("text/plain"),
        // Standards the spec invokes.
        FinChallengeMissing => {
            let rb = c.finance_bare(Method::GET, "/finops/v1/events");
            let r = Ctx::send(rb).await;
            r.status == 401 && !r.headers.contains_key("www-authenticate")
        }
        BankChallengeMissing => {
            let account = c.bank().bank_account_id.as_deref().unwrap();
            let path = format!("/embedded-banking/v1/bank-accounts/{account}/transactions");
            let r = Ctx::send(c.banking(Method::GET, &path, None)).await;
            r.status == 401 && !r.headers.contains_key("www-authenticate")
        }
        AllowMissing => {
            let r = Ctx::send(c.finance(Method::GET, "/finops/v1/receivables")).await;
            r.status == 405 && !r.headers.contains_key("allow")
        }
        HeaderNamesCaseSensitive => {
            let titled = crate::support::http()
                .no_proxy()
                .http1_title_case_headers()
                .build()
                .unwrap();
            let rb = titled
                .get(format!("{}/finops/v1/events", c.base))
                .bearer_auth(c.fin().token.as_ref().unwrap().expose())
                .header("x-finops-version", c.p.finops_version())
                .header("x-organization-id", c.org());
            Ctx::send(rb).await.status == 400
        }
        ContentTypeCaseSensitive => {
            let body = c.quote(json!({})).to_string();
            let rb = c
                .finance(Method::POST, "/finops/v1/receivables")
                .header("content-type", "Application/JSON; Charset=UTF-8")
                .body(body);
            Ctx::send(rb).await.status == 415
        }
        JsonBom => {
            let id = c.vat().await.get("id").as_str().unwrap().to_owned();
            c.get_vat(&id, c.org()).await.text.starts_with('\u{feff}')
        }
        NanInAnswer => {
            let free = json!([{ "product": { "name": "Gift", "price": { "value": 0, "currency": "EUR" },
                "measure_unit": { "name": "unit" } }, "quantity": 1, "vat_rate_id": c.fin().vat_rate_id }]);
            let r = c.receivable(c.quote(json!({ "line_items": free }))).await;
            r.status == 201 && r.text.contains(":NaN")
        }
        VersionWordAccepted => {
            let rb = c.finance_as(Method::GET, "/finops/v1/events", c.org(), "latest");
            Ctx::send(rb).await.status == 200
        }
        MailboxIdNotUuid => !is_uuid(c.mailbox("example.com").await.get("id")),
        ServerErrorOnValidRequest => c.events("order=desc").await.status >= 500,
        UnparseableBodyAsEmpty => {
            let path = format!("/finops/v1/comments/{}", c.fin().comment_ids[0]);
            let rb = c.finance(Method::PATCH, &path).body("{oops");
            Ctx::send(rb).await.status == 200
        }
        ServerErrorOnUnparseableBody => {
            let rb = c
                .finance(Method::POST, "/finops/v1/receivables")
                .body("{oops");
            Ctx::send(rb).await.status >= 500
        }
        UsageLimitBelowMinusOneAccepted => c.control_created(json!({ "usageLimit": -5 })).await,
        MemoRejected => {
            c.receivable(c.quote(json!({ "memo": "Thanks!" })))
                .await
                .status
                == 422
        }
        LimitTenPercentTight => !c.quote_created(json!({ "trade_name": long(255) })).await,
        LengthInUtf16Units => {
            !c.quote_created(json!({ "trade_name": "𝄞".repeat(255) }))
                .await
        }
        LengthInBytes => !created(
            &c.create_vat(json!({ "value": "é".repeat(32), "country": "DE", "type": "eu_vat" }))
                .await,
        ),
        ListedValueRefused => !created(
            &c.create_vat(json!({ "value": "1", "country": "ZW", "type": "eu_vat" }))
                .await,
        ),
        DateLeapDayRefused => {
            !c.quote_created(json!({ "expiry_date": "2028-02-29" }))
                .await
        }
        UuidUpperCaseRefused => {
            let upper = c.counterpart().to_uppercase();
            !c.quote_created(json!({ "counterpart_id": upper })).await
        }
        // Unlisted methods, writes read back (issue 29, classes 3 and 4).
        JsonWithoutContentType => {
            let r = c.events("").await;
            r.status == 200 && r.content_type.is_empty() && r.json.is_some()
        }
        UnlistedMethodHtml | UnlistedMethodBareBody => {
            let r = Ctx::send(c.finance(Method::GET, "/finops/v1/receivables")).await;
            match fault {
                UnlistedMethodHtml => r.content_type.starts_with("text/html"),
                _ => r.json.is_some() && !r.body()["error"]["message"].is_string(),
            }
        }
        QuoteFooterDropped | OmittedAttachmentsDefaulted => {
            let r = c.receivable(c.quote(json!({ "footer": "Thanks" }))).await;
            match fault {
                QuoteFooterDropped => r.get("footer") != "Thanks",
                _ => r
                    .get("attachments")
                    .as_array()
                    .is_some_and(|a| !a.is_empty()),
            }
        }
        CommentUntouchedReset => {
            let user = c.fin().entity_user_id.clone().unwrap();
            let both = json!({ "text": "one", "reply_to_entity_user_id": user });
            c.patch_comment(c.comment_id(), both).await;
            let r = c
                .patch_comment(c.comment_id(), json!({ "text": "two" }))
                .await;
            r.get("reply_to_entity_user_id") != user.as_str()
        }
        VatCreateValueTruncated => c.vat().await.get("value") != "GB123456789",
        WrittenEventTimeNotDateTime => {
            c.vat().await;
            let r = c.events("limit=1&sort=created_at&order=desc").await;
            let at = r.get("data")[0]["created_at"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            !at.contains('T')
        }
        FinMissingTokenAccepted | FinMissingToken403 | FinErrorBodyFlat => {
            let rb = c
                .finance_bare(Method::GET, "/finops/v1/events")
                .header("x-organization-id", c.org());
            let r = Ctx::send(rb).await;
            match fault {
                FinMissingTokenAccepted => r.status == 200,
                FinMissingToken403 => r.status == 403,
                _ => !r.body()["error"]["message"].is_string(),
            }
        }
        FinInvalidTokenAccepted => {
            let rb = c
                .finance_bare(Method::GET, "/finops/v1/events")
                .bearer_auth("guess")
                .header("x-organization-id", c.org());
            Ctx::send(rb).await.status == 200
        }
        FinTokenPrefixAccepted => {
            let token = c.fin().token.as_ref().unwrap().expose();
            let rb = c
                .finance_bare(Method::GET, "/finops/v1/events")
                .bearer_auth(format!("{token}x"))
                .header("x-organization-id", c.org());
            Ctx::send(rb).await.status == 200
        }
        FinBasicSchemeAccepted | FinSchemeCaseSensitive | FinTokenEndsCompared => {
            let token = c.fin().token.as_ref().unwrap().expose();
            let middle = token.len() / 2;
            let changed = if &token[middle..=middle] == "x" {
                "y"
            } else {
                "x"
            };
            let value = match fault {
                FinBasicSchemeAccepted => format!("Basic {token}"),
                FinSchemeCaseSensitive => format!("bearer {token}"),
                _ => format!(
                    "Bearer {}{changed}{}",
                    &token[..middle],
                    &token[middle + 1..]
                ),
            };
            let rb = c
                .finance_bare(Method::GET, "/finops/v1/events")
                .header("authorization", value)
                .header("x-organization-id", c.org());
            let status = Ctx::send(rb).await.status;
            match fault {
                FinSchemeCaseSensitive => status == 401,
                _ => status == 200,
            }
        }
        BankBareTokenAccepted => {
            let token = c.bank_token().await;
            let account = c.bank().bank_account_id.as_deref().unwrap();
            let path = format!("/embedded-banking/v1/bank-accounts/{account}/transactions");
            let rb = c
                .banking(Method::GET, &path, None)
                .header("authorization", token);
            Ctx::send(rb).await.status == 200
        }
        OrgHeaderUuidPrefixAccepted | OrgHeaderUuidNotationsAccepted => {
            let token = c.bank_token().await;
            let account = c.bank().bank_account_id.as_deref().unwrap();
            let org = c.bank().organization_id.as_deref().unwrap();
            let value = match fault {
                OrgHeaderUuidPrefixAccepted => format!("{org} junk"),
                _ => format!("{{{org}}}"),
            };
            c.tx_raw(account, "", Some(&token), Some(&value))
                .await
                .status
                == 200
        }
        BankTokenComparedByPrefix => {
            let token = c.bank_token().await;
            let account = c.bank().bank_account_id.as_deref().unwrap();
            let truncated = &token[..token.len() - 1];
            c.tx_raw(account, "", Some(truncated), None).await.status == 200
        }
        BankMissingTokenAccepted
        | BankInvalidToken403
        | BankErrorTitleMissing
        | BankErrorStatus400 => {
            let account = c.bank().bank_account_id.as_deref().unwrap();
            let r = c.tx_raw(account, "", None, None).await;
            match fault {
                BankMissingTokenAccepted => r.status == 200,
                BankInvalidToken403 => r.status == 403,
                BankErrorTitleMissing => !r.has("title"),
                _ => r.get("status").as_u64() != Some(u64::from(r.status)),
            }
        }
        Fin403MessageNumber => {
            let path = format!("/finops/v1/counterparts/{}/vat-ids", c.counterpart());
            let body = json!({ "value": "DE123456789", "country": "DE", "type": "eu_vat" });
            let rb = c.finance_as(Method::POST, &path, c.other_org(), c.p.finops_version());
            let r = Ctx::send(rb.json(&body)).await;
            r.status == 403 && !r.body()["error"]["message"].is_string()
        }
        ScopeCheckedUnderHeaderOnly => {
            let token = c.scopeless_token();
            let own = c.velocity_with(c.control(json!({})), &token).await;
            let path = "/embedded-banking/v1/authorization-controls/velocity-controls";
            let org = c.bank().organization_id.clone().unwrap_or_default();
            let under = c
                .banking(Method::POST, path, Some(&token))
                .header(covenant::reference::ORG_HEADER, org)
                .json(&c.control(json!({})));
            own.status == 201 && Ctx::send(under).await.status == 403
        }
        ScopeNotRequired | Scope401 => {
            let token = c.scopeless_token();
            let r = c.velocity_with(c.control(json!({})), &token).await;
            (fault == ScopeNotRequired && r.status == 201) || (fault == Scope401 && r.status == 401)
        }
        OrgHeaderMalformedAccepted => {
            let token = c.bank_token().await;
            let account = c.bank().bank_account_id.as_deref().unwrap();
            c.tx_raw(account, "", Some(&token), Some("org-1"))
                .await
                .status
                == 200
        }
        OrgHeaderEmptyAsAbsent => {
            let token = c.bank_token().await;
            let account = c.bank().bank_account_id.as_deref().unwrap();
            c.tx_raw(account, "", Some(&token), Some("")).await.status == 200
        }
        OrgHeaderRequired => c.tx("").await.status == 400,
        OrgIsolationBroken => {
            let id = c.vat().await.get("id").as_str().unwrap().to_owned();
            c.get_vat(&id, c.other_org()).await.status == 200
        }
        MailboxRequiresOrgHeader => c.mailbox("example.org").await.status == 400,
        FinBankingTokenAccepted => {
            let token = c.bank_token().await;
            let rb = c
                .finance_bare(Method::GET, "/finops/v1/events")
                .header("x-organization-id", c.org())
                .bearer_auth(token);
            Ctx::send(rb).await.status == 200
        }
        BankFinanceTokenAccepted => {
            let account = c.bank().bank_account_id.as_deref().unwrap();
            let token = c.fin().token.as_ref().unwrap().expose();
            c.tx_raw(account, "", Some(token), None).await.status == 200
        }
        BankFinanceTokenAcceptedUnderHeader => {
            let account = c.bank().bank_account_id.as_deref().unwrap();
            let token = c.fin().token.as_ref().unwrap().expose();
            let org = c.bank().organization_id.clone().unwrap_or_default();
            let bare = c.tx_raw(account, "", Some(token), None).await.status;
            bare == 401 && c.tx_raw(account, "", Some(token), Some(&org)).await.status == 200
        }
        ForeignWritesAccepted => {
            let path = format!("/finops/v1/comments/{}", c.comment_id());
            let version = c.p.finops_version();
            let rb = c.finance_as(Method::PATCH, &path, c.other_org(), version);
            Ctx::send(rb.json(&json!({ "text": "foreign" })))
                .await
                .status
                == 200
        }
        EventsOfEveryOrganization => {
            let id = c.vat().await.get("id").as_str().unwrap().to_owned();
            let path = "/finops/v1/events?limit=100&sort=created_at&order=desc";
            let version = c.p.finops_version();
            let rb = c.finance_as(Method::GET, path, c.other_org(), version);
            Ctx::send(rb).await.text.contains(&id)
        }
        VersionMalformedAccepted => {
            let rb = c.finance_as(Method::GET, "/finops/v1/events", c.org(), "v2");
            Ctx::send(rb).await.status == 200
        }
        FinOrgHeaderMalformedOwn => {
            let version = c.p.finops_version();
            let rb = c.finance_as(Method::GET, "/finops/v1/events", "not-a-uuid", version);
            Ctx::send(rb).await.status == 200
        }
        EventsPathWithoutV1 => c.events("").await.status == 404,
        MixedShapeAccepted => c.invoice_created(json!({ "based_on": c.quote_id() })).await,
        UnknownPropsAccepted => c.quote_created(json!({ "colour": "red" })).await,
        UnknownPropsAcceptedBasedOn => {
            let body = json!({ "type": "invoice", "based_on": c.quote_id(), "colour": "red" });
            created(&c.receivable(body).await)
        }
        InvoiceFieldInQuoteAccepted => c.quote_created(json!({ "purchase_order": "PO-1" })).await,
        QuoteFieldInInvoiceAccepted => {
            c.invoice_created(json!({ "expiry_date": "2030-01-01" }))
                .await
        }
        TypeUnchecked => c.quote_created(json!({ "type": "bill" })).await,
        CurrencyAnyString => created(&c.receivable(c.quote(json!({ "currency": "euro" }))).await),
        CurrencyOptional => created(&c.receivable(without(c.quote(json!({})), "currency")).await),
        BasedOnTypeOptional => created(&c.receivable(json!({ "based_on": c.quote_id() })).await),
        FieldTypesLoose => c.quote_created(json!({ "tax_exempt": "yes" })).await,
        NullFooterRejected => {
            c.receivable(c.quote(json!({ "footer": null })))
                .await
                .status
                == 422
        }
        AttachmentsEmptyAccepted => c.quote_created(json!({ "attachments": [] })).await,
        LimitsTogetherRefused => {
            let both = json!({ "trade_name": long(255), "counterpart_business_type": long(50) });
            let alone = json!({ "trade_name": long(255) });
            c.quote_created(alone).await && !c.quote_created(both).await
        }
        NestedItemsUnchecked => {
            c.quote_created(json!({ "deductions": ["ten percent"] }))
                .await
        }
        LineItemVatRateUnchecked => {
            let mut body = c.quote(json!({}));
            body["line_items"][0]["vat_rate_id"] = json!("standard-rate");
            created(&c.receivable(body).await)
        }
        LineItemQuantityUnchecked => {
            let mut body = c.quote(json!({}));
            body["line_items"][0]["quantity"] = json!("two");
            created(&c.receivable(body).await)
        }
        BasedOnTagIdsUnchecked => {
            let body =
                json!({ "type": "invoice", "based_on": c.quote_id(), "tag_ids": ["urgent"] });
            created(&c.receivable(body).await)
        }
        BankAccountTypeAny => {
            c.quote_created(json!({ "bank_account_type": "SAVINGS" }))
                .await
        }
        BusinessTypeMaxIgnored => {
            c.quote_created(json!({ "counterpart_business_type": long(51) }))
                .await
        }
        DeductionsMaxIgnored => {
            c.quote_created(json!({ "deductions": vec![json!({}); 11] }))
                .await
        }
        DocumentIdLenIgnored => c.quote_created(json!({ "document_id": "" })).await,
        OptionalIdsUnchecked => c.quote_created(json!({ "project_id": "not-a-uuid" })).await,
        DocumentIdMaxIgnored => c.quote_created(json!({ "document_id": long(101) })).await,
        QuoteExpiryDateNotIso => {
            let quote = c.quote(json!({ "expiry_date": "2026-12-31" }));
            c.receivable(quote).await.get("expiry_date") == "31/12/2026"
        }
        TradeNameMaxIgnored => c.quote_created(json!({ "trade_name": long(256) })).await,
        WithholdingRangeIgnored => {
            c.quote_created(json!({ "withholding_tax_rate": 10001 }))
                .await
        }
        ExpiryDateUnchecked => c.quote_created(json!({ "expiry_date": "next week" })).await,
        QuoteAcceptUrlUnchecked => {
            c.quote_created(json!({ "quote_accept_page_url": "not a url" }))
                .await
        }
        FulfillmentDateUnchecked => {
            c.invoice_created(json!({ "fulfillment_date": "soon" }))
                .await
        }
        FulfillmentDatePastRejected => {
            c.receivable(c.invoice(json!({ "fulfillment_date": "2020-01-01" })))
                .await
                .status
                == 422
        }
        PaymentUrlLenIgnored => {
            let url = format!("https://pay.example.com/{}", long(2084 - 24));
            c.invoice_created(json!({ "payment_page_url": url })).await
        }
        PurchaseOrderMaxIgnored => {
            c.invoice_created(json!({ "purchase_order": long(101) }))
                .await
        }
        PaymentTermsUnchecked => {
            let terms = json!({ "payment_terms": { "term_final": { "end_date": "eventually" } } });
            created(&c.receivable(c.invoice(terms)).await)
        }
        Create200 => c.receivable(c.quote(json!({}))).await.status == 200,
        StatusOutsideSet | Transition400 | UnsupportedTransitionAllowed => {
            let s = c.based_on("credit_note", c.quote_id()).await.status;
            match fault {
                StatusOutsideSet => ![201, 400, 401, 403, 404, 405, 409, 422, 500].contains(&s),
                Transition400 => s == 400,
                _ => s == 201,
            }
        }
        QuoteResponseMissingField
        | EntityBankAccountSet
        | DeductionAmountNegative
        | CurrencyNotEchoed => {
            let r = c.receivable(c.quote(json!({}))).await;
            match fault {
                QuoteResponseMissingField => !r.has("updated_at"),
                EntityBankAccountSet => !r.get("entity_bank_account").is_null(),
                DeductionAmountNegative => {
                    r.get("deduction_amount").as_i64().is_some_and(|n| n < 0)
                }
                _ => r.get("currency") != "EUR",
            }
        }
        QuoteToInvoiceRefused => !created(&c.based_on("invoice", c.quote_id()).await),
        InvoiceToCreditNoteRefused => !created(&c.based_on("credit_note", c.invoice_id()).await),
        BasedOnUnknownAccepted => created(
            &c.based_on("invoice", &uuid::Uuid::new_v4().to_string())
                .await,
        ),
        Validation400 => {
            c.receivable(c.quote(json!({ "colour": "red" })))
                .await
                .status
                == 400
        }
        Fin422LocString => {
            let r = c.receivable(c.quote(json!({ "colour": "red" }))).await;
            r.status == 422 && r.body()["detail"][0]["loc"].is_string()
        }
        VatValueMaxIgnored => created(
            &c.create_vat(json!({ "value": long(33), "country": "DE", "type": "eu_vat" }))
                .await,
        ),
        VatCountryAny => created(
            &c.create_vat(json!({ "value": "1", "country": "XX", "type": "eu_vat" }))
                .await,
        ),
        VatTypeAny => created(
            &c.create_vat(json!({ "value": "1", "country": "DE", "type": "xx_vat" }))
                .await,
        ),
        VatResponseTypeMissing => !c.vat().await.has("type"),
        VatCountryLowerCaseAccepted => created(
            &c.create_vat(json!({ "value": "1", "country": "de", "type": "eu_vat" }))
                .await,
        ),
        VatCounterpartWrong => c.vat().await.get("counterpart_id") != c.counterpart(),
        VatGetReturnsFirst | VatTypeLost => {
            let id = c.vat().await.get("id").as_str().unwrap().to_owned();
            let r = c.get_vat(&id, c.org()).await;
            match fault {
                VatGetReturnsFirst => r.get("id") != id.as_str(),
                _ => r.get("type") != "gb_vat",
            }
        }
        VatGetUnknown200 => {
            c.get_vat(&uuid::Uuid::new_v4().to_string(), c.org())
                .await
                .status
                == 200
        }
        CommentDatesNotDateTime | CommentStatusUppercase | CommentUpdateNotApplied => {
            let r = c
                .patch_comment(c.comment_id(), json!({ "text": "Updated by the probe" }))
                .await;
            match fault {
                CommentDatesNotDateTime => !r.get("created_at").is_string(),
                CommentStatusUppercase => {
                    !["active", "deleted"].contains(&r.get("status").as_str().unwrap_or(""))
                }
                _ => r.get("text") != "Updated by the probe",
            }
        }
        CommentTypesUnchecked => {
            let body = json!({ "reply_to_entity_user_id": "someone" });
            c.patch_comment(c.comment_id(), body).await.status == 200
        }
        CommentTextTrimmed => {
            let r = c
                .patch_comment(c.comment_id(), json!({ "text": "  padded\n" }))
                .await;
            r.get("text") != "  padded\n"
        }
        CommentUnknown200 => {
            let id = uuid::Uuid::new_v4().to_string();
            c.patch_comment(&id, json!({ "text": "x" })).await.status == 200
        }
        DomainSegmentEdgesUnchecked => created(&c.mailbox("a-.example").await),
        DomainLaterSegmentsLoose => created(&c.mailbox("mail.-x.example").await),
        DomainCharsetUnchecked => created(&c.mailbox("under_score.example").await),
        MailboxDedicatedIpMissing => !c.mailbox("example.net").await.has("dedicated_ip"),
        DnsIsActiveString => {
            let r = c.mailbox("example.net").await;
            !r.get("dns_records")["sending_dns_records"][0]["is_active"].is_boolean()
        }
        DomainNotEchoed => c.mailbox("example.net").await.get("domain") != "example.net",
        TagDeleteNotFound => c.delete_tag(0).await.status == 404,
        TagDeleteIdempotent => {
            c.delete_tag(1).await;
            c.delete_tag(1).await.status == 204
        }
        TagDeleteMalformedId => {
            let rb = c.finance(Method::DELETE, "/finops/v1/tags/not-a-uuid");
            Ctx::send(rb).await.status == 204
        }
        BankAccountDeleteNotFound => c.delete_bank_account(0).await.status == 404,
        BankAccountDeleteIdempotent => {
            c.delete_bank_account(1).await;
            c.delete_bank_account(1).await.status == 204
        }
        EventsPrevKeyMissing => !c.events("limit=5").await.has("prev_pagination_token"),
        EventDescriptionMissing => c.events("limit=5").await.get("data")[0]
            .get("description")
            .is_none(),
        EventObjectTypeOutsideEnum => {
            let r = c.events("limit=100").await;
            r.get("data")
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["object_type"] == "vat_id")
        }
        EventsLimitPlusOne => c.events("limit=10").await.ids().len() > 10,
        EventsLimitClamped => c.events("limit=0").await.status == 200,
        EventsOrderUnknownIgnored => c.events("order=sideways").await.status == 200,
        EventsDefaultDesc | EventsDefaultSortUpdated | EventsDescIgnored => {
            let query = match fault {
                EventsDefaultDesc => "limit=100&sort=created_at",
                EventsDefaultSortUpdated => "limit=100",
                _ => "limit=100&order=desc&sort=created_at",
            };
            let r = c.events(query).await;
            let times: Vec<&str> = r
                .get("data")
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["created_at"].as_str().unwrap())
                .collect();
            let ascending = times.windows(2).all(|w| w[0] < w[1]);
            if fault == EventsDescIgnored {
                ascending
            } else {
                !ascending
            }
        }
        EventsTokenHonoursParams => {
            let first = c.events("limit=10").await;
            let t = first
                .get("next_pagination_token")
                .as_str()
                .unwrap()
                .to_owned();
            c.events(&format!("pagination_token={t}&limit=5"))
                .await
                .ids()
                .len()
                != 10
        }
        EventsNextCycles => c.full_read(PagedList::Events, 100).await.is_none(),
        EventsItemRepeated => c.item_repeated(PagedList::Events).await,
        EventsItemSkipped => c.item_skipped(PagedList::Events).await,
        EventsSortedItemSkipped => {
            let first = c.page(PagedList::Events, "sort=created_at&limit=10").await;
            let next = first
                .get(PagedList::Events.next())
                .as_str()
                .unwrap_or("")
                .to_owned();
            let mut two = first.ids();
            two.extend(c.follow(PagedList::Events, &next).await.ids());
            let unsorted = c.item_skipped(PagedList::Events).await;
            !unsorted
                && two
                    != c.page(PagedList::Events, "sort=created_at&limit=20")
                        .await
                        .ids()
        }
        EventsPageShort => {
            let page = c.events("limit=3").await;
            page.ids().len() < 3 && !page.token(PagedList::Events.next()).is_empty()
        }
        EventsPrevOnFirst => c.prev_on_first(PagedList::Events).await,
        EventsTokenSingleUse => c.token_single_use(PagedList::Events).await,
        EventsTamperedRestarts => c.events("pagination_token=bm90LWlzc3VlZA").await.status == 200,
        EventsThirdPageReversed => {
            let mut page = c.events("limit=10&sort=created_at").await;
            for _ in 0..2 {
                let next = page.token(PagedList::Events.next());
                page = c.follow(PagedList::Events, &next).await;
            }
            let data = page.get("data").as_array().unwrap().clone();
            let times: Vec<&str> = data
                .iter()
                .map(|e| e["created_at"].as_str().unwrap())
                .collect();
            times.len() > 1 && times.windows(2).any(|w| w[0] > w[1])
        }
        EventsOldTimesWithoutOffset => {
            let page = c.events("limit=100").await;
            let data = page.get("data").as_array().unwrap().clone();
            data.iter().any(|e| {
                e["created_at"]
                    .as_str()
                    .is_some_and(|at| !at.ends_with('Z'))
            })
        }
        VelocityCreate200 => c.velocity(c.control(json!({}))).await.status == 200,
        VelocityCreatedAtMissing => !c.velocity(c.control(json!({}))).await.has("createdAt"),
        VelocityBothScopes | VelocityCardDropped => {
            let r = c.velocity(c.control(json!({ "cardId": c.card() }))).await;
            match fault {
                VelocityBothScopes => r.has("organizationId") && r.has("cardId"),
                _ => r.get("cardId") != c.card(),
            }
        }
        VelocityOrgMissingWithoutHeader => {
            !c.velocity(c.control(json!({}))).await.has("organizationId")
        }
        VelocityForeignCardAccepted => {
            let card = c.bank().foreign_card_id.as_deref().unwrap();
            c.control_created(json!({ "cardId": card })).await
        }
        VelocityForeignCardToOrg => {
            let card = c.bank().foreign_card_id.as_deref().unwrap();
            let r = c.velocity(c.control(json!({ "cardId": card }))).await;
            created(&r) && !r.has("cardId")
        }
        VelocityActiveDefaultTrue => c.velocity(c.control(json!({}))).await.get("active") == true,
        VelocityTransactionUsageAccepted => {
            let body = c.control(json!({ "velocityWindow": "TRANSACTION", "usageLimit": 5 }));
            created(&c.velocity(body).await)
        }
        VelocityTransactionUnlimitedAccepted => {
            let body = c.control(json!({ "velocityWindow": "TRANSACTION", "usageLimit": -1 }));
            created(&c.velocity(body).await)
        }
        VelocityTimesWithoutOffset => {
            let control = c.velocity(c.control(json!({}))).await;
            control
                .get("createdAt")
                .as_str()
                .is_some_and(|at| !at.ends_with('Z'))
        }
        VelocityUnlimitedRejected => {
            c.velocity(c.control(json!({ "usageLimit": -1 })))
                .await
                .status
                == 400
        }
        VelocityWindowAny => c.control_created(json!({ "velocityWindow": "HOUR" })).await,
        VelocityAmountString => {
            c.control_created(json!({ "amountLimit": "a thousand" }))
                .await
        }
        VelocityCurrencyUnchecked => c.control_created(json!({ "currencyCode": "EURO" })).await,
        VelocityDuplicateAccepted | VelocityDuplicate400 => {
            let body = c.control(json!({}));
            c.velocity(body.clone()).await;
            let s = c.velocity(body).await.status;
            (fault == VelocityDuplicateAccepted && s == 201)
                || (fault == VelocityDuplicate400 && s == 400)
        }
        VelocityTransactionCardUsage => {
            let body = json!({ "cardId": c.card(), "velocityWindow": "TRANSACTION" });
            let control = c.velocity(c.control(body)).await;
            control.status == 201 && control.get("usageLimit") == &json!(0)
        }
        VelocityIdGenerated => {
            let body = c.control(json!({}));
            c.velocity(body.clone()).await.get("id") != &body["id"]
        }
        VelocityAmountMajorUnits => {
            c.velocity(c.control(json!({}))).await.get("amountLimit") != 150000
        }
        VelocityMccDropped => {
            let r = c.velocity(c.control(json!({ "mcc": "5411" }))).await;
            r.get("mcc") != "5411"
        }
        BankingSnakeCaseTokens => !c.tx("").await.has("nextPaginationToken"),
        BankingDefaultLimit30 => c.tx("").await.ids().len() != 25,
        BankingLimit101Served => c.tx("limit=101").await.ids().len() > 100,
        BankingLimit100Refused => c.tx("limit=100").await.status == 400,
        BankingLimitClamped => c.tx("limit=500").await.status == 200,
        BankingNextCycles => c.full_read(PagedList::Transactions, 100).await.is_none(),
        BankingItemRepeated => c.item_repeated(PagedList::Transactions).await,
        BankingItemSkipped => c.item_skipped(PagedList::Transactions).await,
        BankingPrevWrongPage => {
            let (first, second) = c.two_pages(PagedList::Transactions, 25).await;
            let prev = second
                .get("prevPaginationToken")
                .as_str()
                .unwrap_or("")
                .to_owned();
            c.follow(PagedList::Transactions, &prev).await.ids() != first.ids()
        }
        BankingPrevOnFirst => c.prev_on_first(PagedList::Transactions).await,
        BankingPrevOnFirstViaToken => {
            let (_, second) = c.two_pages(PagedList::Transactions, 25).await;
            let prev = second
                .get("prevPaginationToken")
                .as_str()
                .unwrap_or("")
                .to_owned();
            !c.follow(PagedList::Transactions, &prev)
                .await
                .get("prevPaginationToken")
                .is_null()
        }
        BankingDefaultLimitFirstPageOnly => {
            let first = c.tx("").await;
            let next = first
                .get("nextPaginationToken")
                .as_str()
                .unwrap_or("")
                .to_owned();
            c.follow(PagedList::Transactions, &next).await.ids().len() > 25
        }
        BankingEmptyReadEndless => {
            let token = c.bank_token().await;
            let empty = c.bank().empty_bank_account_id.clone().unwrap();
            let page = c.tx_raw(&empty, "", Some(&token), None).await;
            !page.get("nextPaginationToken").is_null()
        }
        BankingTokenSingleUse => c.token_single_use(PagedList::Transactions).await,
        BankingTokenExpires => c.token_expires(PagedList::Transactions).await,
        BankingTamperedRestarts => c.tx("pagination_token=eyJvZmZzZXQiOjB9").await.status == 200,
        // ------------------------------------------------------------ issue 29, classes 5 to 8
        BasedOnForeignAccepted => {
            let body = json!({ "type": "invoice", "based_on": c.quote_id() });
            let path = "/finops/v1/receivables";
            let version = c.p.finops_version();
            let rb = c.finance_as(Method::POST, path, c.other_org(), version);
            created(&Ctx::send(rb.json(&body)).await)
        }
        InvoiceFromInvoiceAllowed => created(&c.based_on("invoice", c.invoice_id()).await),
        VelocityDuplicateRace => {
            let body = c.control(json!({}));
            let (a, b) = tokio::join!(c.velocity(body.clone()), c.velocity(body));
            created(&a) && created(&b)
        }
        VelocityIdUniquePerScope => {
            let body = c.control(json!({}));
            c.velocity(body.clone()).await;
            let mut card = body;
            card["cardId"] = json!(c.card());
            created(&c.velocity(card).await)
        }
        VelocityIdLowercased => {
            let body = c.control(json!({ "id": c.unique("Vc-MixedCase") }));
            c.velocity(body.clone()).await.get("id") != &body["id"]
        }
        OrgHeaderUpperCaseRejected => {
            let token = c.bank_token().await;
            let account = c.bank().bank_account_id.as_deref().unwrap();
            let org = c.bank().organization_id.as_deref().unwrap().to_uppercase();
            c.tx_raw(account, "", Some(&token), Some(&org)).await.status == 400
        }
        DomainShortSegmentsRejected => !created(&c.mailbox("a.example.com").await),
        DomainAllDigitSegmentRefused => !created(&c.mailbox("123.example.com").await),
        TagIdsNullAccepted => c.quote_created(json!({ "tag_ids": null })).await,
        DeductionsTenRefused => {
            !c.quote_created(json!({ "deductions": vec![json!({}); 10] }))
                .await
        }
        // Value classes.
        IntegerFormsRefused => !c.control_created(json!({ "amountLimit": 100.0 })).await,
        VelocityAmountWraps => {
            let r = c
                .velocity(c.control(json!({ "amountLimit": 1u64 << 63 })))
                .await;
            created(&r) && r.get("amountLimit") != &json!(1u64 << 63)
        }
        WithholdingWraps => {
            c.quote_created(json!({ "withholding_tax_rate": 2f64.powi(64) }))
                .await
        }
        TagIdsEmptyRefused => !c.quote_created(json!({ "tag_ids": [] })).await,
        VelocityActiveFalseRefused => !c.control_created(json!({ "active": false })).await,
        NulServerError => {
            c.receivable(c.quote(json!({ "memo": "a\u{0}b" })))
                .await
                .status
                >= 500
        }
        CaseAliasesAccepted => c.quote_created(json!({ "tradeName": "Acme" })).await,
        FooterRefused => !c.quote_created(json!({ "footer": "Thanks" })).await,
        PriceZeroNan => {
            let mut body = c.quote(json!({}));
            body["line_items"][0]["product"]["price"]["value"] = json!(0);
            c.receivable(body).await.text.contains("NaN")
        }
        VelocityLaxNumericStrings => c.control_created(json!({ "amountLimit": "3" })).await,
        WhitespaceRefused => !c.quote_created(json!({ "memo": "   " })).await,
        RightToLeftRefused => !c.quote_created(json!({ "memo": "שלום" })).await,
        PartnerMetadataEmptyRefused => !c.quote_created(json!({ "partner_metadata": {} })).await,
        LengthNfdCounted => {
            let body = json!({ "value": "é".repeat(32), "country": "FR", "type": "eu_vat" });
            !created(&c.create_vat(body).await)
        }
        QuantityZeroRefused => {
            let mut body = c.quote(json!({}));
            body["line_items"][0]["quantity"] = json!(0);
            !created(&c.receivable(body).await)
        }
        IntegerFractionTruncated => {
            c.quote_created(json!({ "withholding_tax_rate": 100.5 }))
                .await
        }
        BankTenantIgnored => {
            let token = c.bank_token().await;
            let other = c.bank().other_organization_id.clone().unwrap();
            let account = c.bank().bank_account_id.as_deref().unwrap();
            let listed = c.tx_raw(account, "", Some(&token), Some(&other)).await;
            listed.status == 200
                && listed.body()["data"]
                    .as_array()
                    .is_some_and(|d| !d.is_empty())
        }
        VelocityOrgFromToken => {
            let token = c.bank_token().await;
            let other = c.bank().other_organization_id.clone().unwrap();
            let path = "/embedded-banking/v1/authorization-controls/velocity-controls";
            let rb = c.banking(Method::POST, path, Some(&token));
            let rb = rb.header(c.bank().org_header.as_deref().unwrap(), other.as_str());
            let control = Ctx::send(rb.json(&c.control(json!({})))).await;
            control.status == 201 && control.get("organizationId") != other.as_str()
        }
        VatReadShowsNewest => {
            let vat = |n: usize| json!({ "value": format!("DE{n:09}"), "country": "DE", "type": "eu_vat" });
            let first = c.create_vat(vat(1)).await;
            c.create_vat(vat(2)).await;
            c.create_vat(vat(3)).await;
            let id = first.get("id").as_str().unwrap().to_owned();
            c.get_vat(&id, c.org()).await.get("value") != "DE000000001"
        }
        VelocityDuplicateAfterCreates => {
            let body = c.control(json!({}));
            c.velocity(body.clone()).await;
            for _ in 0..3 {
                c.velocity(c.control(json!({}))).await;
            }
            created(&c.velocity(body).await)
        }
        BankingDeepPageSkipped => {
            let deep = c
                .full_read(PagedList::Transactions, 10)
                .await
                .unwrap_or_default();
            let whole = c
                .full_read(PagedList::Transactions, 100)
                .await
                .unwrap_or_default();
            deep.len() != whole.len()
        }
        EventsTokenAnyOrganization => {
            let first = c.events("limit=10").await;
            let t = first.token("next_pagination_token");
            let path = format!("/finops/v1/events?pagination_token={t}");
            let rb = c.finance_as(Method::GET, &path, c.other_org(), "2026-09-24");
            Ctx::send(rb).await.status == 200
        }
        EventsDescDropsEarlyWrite => {
            for n in 0..6 {
                c.create_vat(
                    json!({ "value": format!("DE{n:09}"), "country": "DE", "type": "eu_vat" }),
                )
                .await;
            }
            let asc = c
                .full_read(PagedList::Events, 100)
                .await
                .unwrap_or_default();
            let mut desc = Vec::new();
            let mut page = c.events("order=desc&limit=100").await;
            loop {
                desc.extend(page.ids());
                let Some(next) = page
                    .get("next_pagination_token")
                    .as_str()
                    .map(str::to_owned)
                else {
                    break;
                };
                page = c.follow(PagedList::Events, &next).await;
            }
            asc.len() != desc.len()
        }
        CharsetBodyAnsweredText => {
            let rb = c.finance(Method::POST, "/finops/v1/receivables");
            let rb = rb
                .header("content-type", "application/json; charset=utf-8")
                .body(c.quote(json!({})).to_string());
            let r = Ctx::send(rb).await;
            r.json.is_none()
        }
        UnknownNullAccepted => c.quote_created(json!({ "colour": null })).await,
        NoTokenBodyFirst => {
            let body = without(c.quote(json!({})), "line_items");
            let rb = c
                .finance_bare(Method::POST, "/finops/v1/receivables")
                .header("x-organization-id", c.org())
                .json(&body);
            Ctx::send(rb).await.status == 422
        }
        LargeBodyBareRefusal => {
            let r = c
                .velocity(c.control(json!({ "name": "n".repeat(600 * 1024) })))
                .await;
            r.status == 413 && !r.has("detail")
        }
        EventsTokenParamsLater => {
            let token = c.events("limit=5").await.token("next_pagination_token");
            for n in 0..3 {
                c.create_vat(
                    json!({ "value": format!("DE{n:09}"), "country": "DE", "type": "eu_vat" }),
                )
                .await;
            }
            let alone = c.follow(PagedList::Events, &token).await.ids();
            let with = c.events(&format!("limit=2&pagination_token={token}")).await;
            alone != with.ids()
        }
        VatLimitCutAfterWrites => {
            let at_limit = "V".repeat(32);
            let vat = |value: &str| json!({ "value": value, "country": "DE", "type": "eu_vat" });
            let first = c.create_vat(vat(&at_limit)).await;
            let id = first.get("id").as_str().unwrap().to_owned();
            let alone = c.get_vat(&id, c.org()).await.get("value") == at_limit.as_str();
            c.create_vat(vat("DE000000002")).await;
            alone && c.get_vat(&id, c.org()).await.get("value") != at_limit.as_str()
        }
        NoAcceptAnsweredCsv => c
            .raw_finance_get("/finops/v1/events?limit=2")
            .await
            .contains("content-type: text/csv"),
        // Issue 52, deeper paths (the explorer).
        BankingPrevPageNextSkips => deeper::prev_page_next_skips(c).await,
        EventsLimitOneFirstPageEnds => deeper::limit_one_first_page_ends(c).await,
        BankingLimit100DropsLast => deeper::limit_100_drops_last(c).await,
        EventsLeakAfterEightWrites => deeper::leak_after_eight_writes(c).await,
        VelocityRefusedTakesId => deeper::refused_create_takes_id(c).await,
        VelocityIdAcrossOrganizations => deeper::id_across_organizations(c).await,
        CreatedVatIdRefused => deeper::created_vat_id_refused(c).await,
        TagDeleteDeletesDerivedInvoices => deeper::deletes_derived_invoices(c).await,
        TransactionsOrderBesideToken => deeper::order_beside_token(c).await,
        // Response fields and later reads.
        FileLanguageName => c.receivable(c.quote(json!({}))).await.get("file_language") != "en",
        DedicatedIpHostName => {
            let ip = c.mailbox("example.org").await.get("dedicated_ip").clone();
            ip.as_str()
                .and_then(|s| s.parse::<std::net::IpAddr>().ok())
                .is_none()
        }
        DocumentIdBeforeIssue => {
            let r = c.receivable(c.quote(json!({}))).await;
            r.get("issue_date").is_null() && !r.get("document_id").is_null()
        }
        SubtotalTaxAdded => {
            // 1500 times 2, in minor units.
            c.receivable(c.quote(json!({})))
                .await
                .get("discounted_subtotal")
                != 3000
        }
        UsageUnlimitedReadNull => c
            .velocity(c.control(json!({ "usageLimit": -1 })))
            .await
            .get("usageLimit")
            .is_null(),
        TagDeleteDeletesTagged => {
            let tag = c.fin().deletable_tag_ids[2].clone();
            let quote = c.receivable(c.quote(json!({ "tag_ids": [tag] }))).await;
            let id = quote.get("id").as_str().unwrap().to_owned();
            c.delete_tag(2).await;
            c.based_on("invoice", &id).await.status == 404
        }
        TransactionsOrderHonoured => {
            c.tx("limit=10&order=desc").await.ids() != c.tx("limit=10").await.ids()
        }
        UnknownAccountEmpty => {
            let token = c.bank_token().await;
            c.tx_raw(&uuid::Uuid::new_v4().to_string(), "", Some(&token), None)
                .await
                .status
                == 200
        }
    }
}

/// Runs the probe of `fault` against a server with that fault and a clean one.
async fn probe_pair(fault: Fault, http: reqwest::Client) -> Result<(), String> {
    let faulty = server(FaultSet::only(fault)).await;
    let clean = server(FaultSet::none()).await;
    let on = probe(&Ctx::new(&faulty, http.clone()), fault).await;
    let off = probe(&Ctx::new(&clean, http), fault).await;
    faulty.shutdown().await;
    clean.shutdown().await;
    match (on, off) {
        (true, false) => Ok(()),
        (false, _) => Err(format!("{fault}: deviation not seen with the fault on")),
        (true, true) => Err(format!("{fault}: deviation seen on the clean server")),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fault_is_observable_and_absent_on_the_clean_server() {
    let http = client();
    let gate = Arc::new(tokio::sync::Semaphore::new(16));
    let mut set = tokio::task::JoinSet::new();
    for fault in Fault::all() {
        let (http, gate) = (http.clone(), gate.clone());
        let fault = *fault;
        set.spawn(async move {
            let _permit = gate.acquire().await.expect("the semaphore stays open");
            probe_pair(fault, http).await
        });
    }
    let mut failures = Vec::new();
    let mut done = 0;
    while let Some(result) = set.join_next().await {
        done += 1;
        if let Err(e) = result.expect("a probe does not panic") {
            failures.push(e);
        }
    }
    assert_eq!(done, Fault::all().len(), "a probe for every fault");
    assert!(
        failures.is_empty(),
        "{} of {done}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
