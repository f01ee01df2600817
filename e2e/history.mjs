// Reads a running tonql's stored history with the ecosystem's own clients,
// unchanged: @ton/ton's TonClient (getTransactions with limit, lt+hash
// paging and to_lt, getTransaction, tryLocateResultTx/SourceTx,
// getMasterchainInfo, getShardTransactions) and tonweb's HttpProvider
// (getTransactions, getMasterchainInfo, getBlockHeader, lookupBlock,
// getBlockTransactions, getConfigParam).
//
//   node history.mjs <input.json>
//
// input: {"endpoint": ".../api/v2/jsonRPC", "account": "0:...",
//         "block": {"workchain": 0, "shard": "-9223372036854775808", "seqno": N, "lt": "..."},
//         "smallBlock": {"workchain": 0, "shard": "...", "seqno": N} (one that TonClient reads whole),
//         "locate": {"source": "0:...", "destination": "0:...", "created_lt": "..."},
//         "configId": 20}
// prints one JSON object: case name -> {"value": ...} or {"error": "..."}.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Address } from "@ton/core";
import { TonClient } from "@ton/ton";
import { out, run } from "./cases.mjs";

const TonWeb = createRequire(import.meta.url)("tonweb");

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const client = new TonClient({ endpoint: input.endpoint, timeout: 30_000 });
const provider = new TonWeb.HttpProvider(input.endpoint);

// A transaction as @ton/core decodes it from the BOC the server sent.
const core = (tx) => ({ lt: tx.lt.toString(), hash: tx.hash().toString("base64"), fees: tx.totalFees.coins.toString(),
  prevLt: tx.prevTransactionLt.toString() });
// A transaction as tonweb's caller reads the JSON.
const web = (tx) => ({ lt: tx.transaction_id.lt, hash: tx.transaction_id.hash, fees: tx.fee });

const account = Address.parse(input.account);
let page1;
await run("ton/txs", async () => (page1 = (await client.getTransactions(account, { limit: 5 })).map(core)));
await run("ton/txs/next", async () => {
  const last = page1[page1.length - 1];
  return (await client.getTransactions(account, { limit: 5, lt: last.lt, hash: last.hash })).map(core);
});
await run("ton/txs/to_lt", async () =>
  (await client.getTransactions(account, { limit: 100, to_lt: page1[3].lt })).map(core));
await run("ton/tx", async () => {
  const tx = await client.getTransaction(account, page1[2].lt, page1[2].hash);
  return tx && core(tx);
});
const src = Address.parse(input.locate.source), dst = Address.parse(input.locate.destination);
await run("ton/result", async () => core(await client.tryLocateResultTx(src, dst, input.locate.created_lt)));
await run("ton/source", async () => core(await client.tryLocateSourceTx(src, dst, input.locate.created_lt)));
await run("ton/masterchain", async () => await client.getMasterchainInfo());
await run("ton/shardTxs", async () =>
  (await client.getShardTransactions(input.smallBlock.workchain, input.smallBlock.seqno, input.smallBlock.shard))
    .map((t) => ({ account: t.account.toRawString(), lt: t.lt, hash: t.hash })));

let web1;
await run("tonweb/txs", async () => (web1 = (await provider.getTransactions(input.account, 5)).map(web)));
await run("tonweb/txs/next", async () => {
  const last = web1[web1.length - 1];
  return (await provider.getTransactions(input.account, 5, last.lt, last.hash)).map(web);
});
await run("tonweb/txs/to_lt", async () => (await provider.getTransactions(input.account, 100, undefined, undefined, web1[3].lt)).map(web));
await run("tonweb/masterchain", async () => await provider.getMasterchainInfo());
await run("tonweb/header", async () => await provider.getBlockHeader(input.block.workchain, input.block.shard, input.block.seqno));
await run("tonweb/lookup", async () =>
  await provider.send("lookupBlock", { workchain: input.block.workchain, shard: input.block.shard, lt: input.block.lt }));
await run("tonweb/blockTxs", async () => {
  const first = await provider.getBlockTransactions(input.block.workchain, input.block.shard, input.block.seqno, 30);
  const last = first.transactions[first.transactions.length - 1];
  const next = await provider.getBlockTransactions(input.block.workchain, input.block.shard, input.block.seqno, 30,
    last.lt, last.account.split(":")[1]);
  return { first: first.transactions, next: next.transactions, incomplete: first.incomplete };
});
await run("tonweb/config", async () => {
  const cell = await provider.getConfigParam(input.configId);
  return Buffer.from(await cell.hash()).toString("hex");
});

process.stdout.write(JSON.stringify(out));
