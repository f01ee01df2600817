// Subscribes to a running tonql with graphql-ws's own client (the one
// browsers and GraphiQL use; in node it needs a WebSocket implementation,
// ws, which browsers have built in), exactly as a web page would:
//
//   node subscribe.mjs <ws-url> <count> [filter-json]
//
// It subscribes to Subscription.actions, prints "ready" once the
// connection is acknowledged, then one JSON line per event (cursor,
// action_id, type, address book size) until count events arrived, then
// "done". Errors are printed as {"error": ...} and exit 1.
import { createClient } from "graphql-ws";
import WebSocket from "ws";

const [url, countArg, filterArg] = process.argv.slice(2);
const want = Number(countArg);
const filter = filterArg ? JSON.parse(filterArg) : null;

const client = createClient({
  url,
  webSocketImpl: WebSocket,
  retryAttempts: 0,
  on: { connected: () => console.log("ready") },
});

let got = 0;
client.subscribe(
  {
    query: `subscription($f: ActionFilter) {
      actions(filter: $f) { cursor action { action_id type } address_book_entries { address user_friendly } }
    }`,
    variables: { f: filter },
  },
  {
    next: (msg) => {
      if (msg.errors) {
        console.log(JSON.stringify({ error: msg.errors }));
        process.exit(1);
      }
      const e = msg.data.actions;
      console.log(JSON.stringify({ cursor: e.cursor, action_id: e.action.action_id, type: e.action.type,
        book: e.address_book_entries.length }));
      if (++got === want) {
        console.log("done");
        client.dispose();
        process.exit(0);
      }
    },
    error: (err) => {
      console.log(JSON.stringify({ error: String(err?.message ?? err?.reason ?? err) }));
      process.exit(1);
    },
    complete: () => {},
  },
);
