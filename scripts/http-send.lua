-- wrk script for scripts/http-send-baseline.sh: POST /v1/messages with a unique clientMsgId per request.
local counter = 0
local threads = {}
function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end
function init(args)
  token = os.getenv("TOKEN")
  conversation = os.getenv("CONV")
  prefix = os.getenv("PREFIX") or "w"
end
function request()
  counter = counter + 1
  local body = string.format('{"conversationId":%s,"clientMsgId":"%s-%d-%d","kind":"text","content":{"text":"benchmark message"}}', conversation, prefix, tid, counter)
  return wrk.format("POST", "/v1/messages", {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token}, body)
end
function done(summary, latency, requests)
  io.write(string.format("requests %d, errors %d, p50 %.2f ms, p99 %.2f ms\n", summary.requests, summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, latency:percentile(50)/1000, latency:percentile(99)/1000))
end
