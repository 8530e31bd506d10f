-- wrk request mix for bench/compare.sh: the reference's own ceiling on requests like the suite's.
-- Cycles four representative requests: read a VAT ID, list events, list bank account transactions
-- (banking token), and a create receivable that is refused (422, unknown property).
-- Everything comes from the environment that compare.sh sets: no secret is written here.
local e = os.getenv
local fin = {
  ["Authorization"] = "Bearer " .. e("FIN_TOKEN"),
  ["x-finops-version"] = e("FIN_VERSION"),
  ["x-organization-id"] = e("FIN_ORG"),
}
local bank = {
  ["Authorization"] = "Bearer " .. e("BANK_TOKEN"),
  [e("BANK_ORG_HEADER")] = e("BANK_ORG"),
}
local post = {}
for k, v in pairs(fin) do post[k] = v end
post["content-type"] = "application/json"

local requests = {}
local i = 0

init = function(args)
  requests[1] = wrk.format("GET", "/finops/v1/counterparts/" .. e("COUNTERPART") .. "/vat-ids/" .. e("VAT_ID"), fin)
  requests[2] = wrk.format("GET", "/finops/v1/events?limit=25", fin)
  requests[3] = wrk.format("GET", "/embedded-banking/v1/bank-accounts/" .. e("BANK_ACCOUNT") .. "/transactions?limit=25", bank)
  requests[4] = wrk.format("POST", "/finops/v1/receivables", post, '{"type":"quote","unknown_property":1}')
end

request = function()
  i = i % #requests + 1
  return requests[i]
end
