-- wrk script: POST the GraphQL equivalent of /api/v3/actions?account=HOT&limit=10
local hot = os.getenv("HOT")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"query":"query($a:String){actions(filter:{account:$a},limit:10){actions{action_id trace_id tx_hash type status value start_lt start_utime end_lt end_utime} address_book}}","variables":{"a":"' .. hot .. '"}}'
