-- wrk script: one page (first 10) of an account's actions through the
-- GraphQL cursor connection, after the cursor in AFTER (unset: first page).
local hot = os.getenv("HOT")
local after = os.getenv("AFTER") or ""
local vars = '{"a":"' .. hot .. '"}'
if after ~= "" then vars = '{"a":"' .. hot .. '","after":"' .. after .. '"}' end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"query":"query($a:String!,$after:String){account(address:$a){actions(first:10,after:$after){edges{cursor node{action_id type status value start_lt end_lt}} pageInfo{hasNextPage endCursor}}}}","variables":' .. vars .. '}'
