-- wrk script: POST the same JSON body (read from the file named after --)
-- on every request, as a client hammering one estimate would.
--   wrk -s estimate_fee.lua http://host/api/v2/estimateFee -- body.json
init = function(args)
  local f = assert(io.open(args[1], "rb"))
  wrk.body = f:read("*a")
  f:close()
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end
