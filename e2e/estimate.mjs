// Asks a running tonql for fee estimates through the ecosystem's own
// clients, unchanged: @ton/ton's TonClient.estimateExternalMessageFee and
// tonweb's HttpProvider.getEstimateFee (both speak POST /api/v2/jsonRPC).
//
//   node estimate.mjs <input.json>
//
// input: {"endpoint": "http://host:port/api/v2/jsonRPC",
//         "wallet": {"address": "0:...", "body": "<base64 BOC>"}}
// prints one JSON object: case name -> {"fees": {...}} or {"error": "..."},
// plus "deploys": the exact params each deploy case sent, so the caller can
// ask the REST route the same question. Exit code 0 whenever every call
// returned (successes and errors alike); the caller judges the answers.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Address, Cell, SendMode, beginCell, internal, toNano } from "@ton/core";
import { keyPairFromSeed } from "@ton/crypto";
import { TonClient, WalletContractV4, WalletContractV5R1 } from "@ton/ton";

const TonWeb = createRequire(import.meta.url)("tonweb");

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const tonClient = new TonClient({ endpoint: input.endpoint, timeout: 30_000 });
const tonweb = new TonWeb.HttpProvider(input.endpoint);

const out = { deploys: {} };

// run records a call's answer or the error the client surfaced.
async function run(name, call) {
  try {
    out[name] = { fees: await call() };
  } catch (e) {
    // axios errors carry the server's JSON; tonweb rejects with the message
    const data = e?.response?.data;
    out[name] = { error: data ? JSON.stringify(data) : String(e?.message ?? e) };
  }
}

// both asks the two clients the same question (base64 strings in, the
// server's source_fees out).
async function both(name, p) {
  await run(`${name}/ton`, async () => {
    const r = await tonClient.estimateExternalMessageFee(Address.parse(p.address), {
      body: Cell.fromBase64(p.body),
      initCode: p.init_code ? Cell.fromBase64(p.init_code) : null,
      initData: p.init_data ? Cell.fromBase64(p.init_data) : null,
      ignoreSignature: true,
    });
    return r.source_fees;
  });
  await run(`${name}/tonweb`, async () => {
    const r = await tonweb.getEstimateFee({ ignore_chksig: true, init_code: "", init_data: "", ...p });
    return r.source_fees;
  });
}

// A wallet transfer from an imported wallet: a real mainnet message.
await both("wallet", { address: input.wallet.address, body: input.wallet.body });

// Deployments of new wallets from a fixed test key: StateInit and signed
// first transfer made by @ton/ton, to an address nobody has.
const key = keyPairFromSeed(Buffer.alloc(32, 7));
const b64 = (c) => c.toBoc().toString("base64");
const transfer = {
  seqno: 0,
  secretKey: key.secretKey,
  sendMode: SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS,
  messages: [internal({ to: Address.parse(input.wallet.address), value: toNano("0.05"), body: "tonql e2e" })],
};
for (const [name, w] of [
  ["deploy-v4", WalletContractV4.create({ workchain: 0, publicKey: key.publicKey })],
  ["deploy-v5r1", WalletContractV5R1.create({ workchain: 0, publicKey: key.publicKey })],
]) {
  const p = {
    address: w.address.toString(),
    body: b64(w.createTransfer(transfer)),
    init_code: b64(w.init.code),
    init_data: b64(w.init.data),
  };
  out.deploys[name] = p;
  await both(name, p);
}

// Errors each client must surface, not hide: an address the server rejects
// (workchain 7 passes @ton/core's parser), a body the wallet refuses (empty
// cell: the contract reads past its end), and for tonweb, which passes
// strings through, a garbage address and body.
const nowhere = new Address(7, Buffer.alloc(32, 1));
await run("bad-address/ton", async () =>
  (await tonClient.estimateExternalMessageFee(nowhere, { body: beginCell().endCell(), initCode: null, initData: null, ignoreSignature: true })).source_fees);
await run("bad-address/tonweb", async () =>
  (await tonweb.getEstimateFee({ address: "0:not-an-address", body: b64(beginCell().endCell()) })).source_fees);
await run("bad-body/ton", async () =>
  (await tonClient.estimateExternalMessageFee(Address.parse(input.wallet.address), { body: beginCell().endCell(), initCode: null, initData: null, ignoreSignature: true })).source_fees);
await run("bad-body/tonweb", async () =>
  (await tonweb.getEstimateFee({ address: input.wallet.address, body: "not base64!" })).source_fees);

process.stdout.write(JSON.stringify(out) + "\n");
