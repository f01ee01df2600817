// Previews TON Connect sendTransaction requests on a running tonql as a dApp
// writes them with @ton/core and @ton/ton, and the signed message a wallet
// app would make of the same transfer with @ton/ton's wallet contracts.
//
//   node tonconnect.mjs <input.json>
//
// input: {"base": "http://host:port",
//         "wallets": [{"name": "v4", "address": "0:...", "publicKey": "<hex>", "version": "v4"|"v5r1"}],
//         "recipient": "0:...", "notWallet": "0:...", "validUntil": <unix>,
//         "chain": [{"name": "...", "request": {TON Connect request of a message the chain executed}}]}
// prints one JSON object: case name -> {"value": ...} or {"error": "..."}.
import { readFileSync } from "node:fs";
import { Address, SendMode, beginCell, external, internal, storeMessage, storeStateInit, toNano } from "@ton/core";
import { keyPairFromSeed } from "@ton/crypto";
import { TonClient, WalletContractV4, WalletContractV5R1 } from "@ton/ton";
import { out, run, postJSON, fees } from "./cases.mjs";

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const client = new TonClient({ endpoint: input.base + "/api/v2/jsonRPC", timeout: 30_000 });

const post = (path, body) => postJSON(input.base, path, body);

// Wallet apps sign with the owner's key; previews skip the check, so any
// key makes the same message (the wallets' owners keep theirs).
const stranger = keyPairFromSeed(Buffer.alloc(32, 7));
const recipient = Address.parse(input.recipient);

// A dApp's request: a transfer with a text comment, written with @ton/core
// (payload a base64 BOC, address in the friendly form the dApp displays).
const comment = beginCell().storeUint(0, 32).storeStringTail("tonql TON Connect preview").endCell();
const amount = toNano("0.05");
const tcMessage = {
  address: recipient.toString({ bounceable: false }),
  amount: amount.toString(),
  payload: comment.toBoc().toString("base64"),
};

for (const w of input.wallets) {
  const publicKey = Buffer.from(w.publicKey, "hex");
  const contract = w.version === "v4"
    ? WalletContractV4.create({ workchain: 0, publicKey })
    : WalletContractV5R1.create({ workchain: 0, publicKey });
  const from = contract.address.toString({ bounceable: false });
  const request = { from, valid_until: input.validUntil, network: "-239", messages: [tcMessage] };
  await run(`${w.name}/tonconnect`, async () => fees(await post("/api/v3/emulate", request)));
  await run(`${w.name}/toncenter`, async () => {
    const r = await post("/api/emulate/v1/emulateTonConnect", { ...request, with_actions: true });
    return { transactions: Object.keys(r.transactions).length, actions: r.actions.map((a) => a.type), mc_block_seqno: r.mc_block_seqno };
  });
  // The same transfer signed as the wallet app signs it: @ton/ton's
  // createTransfer at the wallet's seqno (read through runGetMethod),
  // send mode 3 (what TON Connect wallets use), the same valid_until.
  await run(`${w.name}/signed`, async () => {
    const seqno = await client.open(contract).getSeqno();
    const args = {
      seqno, secretKey: stranger.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY | SendMode.IGNORE_ERRORS,
      timeout: input.validUntil,
      messages: [internal({ to: recipient, bounce: false, value: amount, body: comment })],
    };
    const body = contract.createTransfer(args);
    const ext = beginCell().store(storeMessage(external({ to: contract.address, body }))).endCell();
    return fees(await post("/api/v3/emulate", { boc: ext.toBoc().toString("base64"), ignore_chksig: true }));
  });
}

// Requests for what the chain executed (the fixture's signed messages).
for (const c of input.chain) {
  await run(`chain/${c.name}`, async () => fees(await post("/api/v3/emulate", c.request)));
}

// A wallet that does not exist yet: its StateInit (TON Connect's
// walletStateInit) makes the preview its deployment.
const fresh = WalletContractV5R1.create({ workchain: 0, publicKey: keyPairFromSeed(Buffer.alloc(32, 3)).publicKey });
const init = beginCell().store(storeStateInit(fresh.init)).endCell().toBoc().toString("base64");
await run("deploy", async () => {
  const p = await post("/api/v3/emulate", {
    from: fresh.address.toString({ bounceable: false }), state_init: init, valid_until: input.validUntil,
    messages: [tcMessage],
  });
  return { address: fresh.address.toRawString(), deployed: p.risk.contracts_deployed, root: p.transactions[0].account, complete: p.complete };
});

// Requests a wallet cannot build, each refused naming why.
const v4 = input.wallets.find((w) => w.version === "v4");
const v4from = Address.parse(v4.address).toString();
const refusals = {
  "not-deployed": { from: fresh.address.toString(), messages: [tcMessage] },
  "too-many": { from: v4from, messages: [tcMessage, tcMessage, tcMessage, tcMessage, tcMessage] },
  "expired": { from: v4from, valid_until: 1000, messages: [tcMessage] },
  "bad-payload": { from: v4from, messages: [{ ...tcMessage, payload: "not base64!" }] },
  "not-a-wallet": { from: Address.parse(input.notWallet).toString(), messages: [tcMessage] },
  "bad-amount": { from: v4from, messages: [{ ...tcMessage, amount: "0.05" }] },
};
for (const [name, body] of Object.entries(refusals)) {
  await run(`refuse/${name}`, async () => post("/api/v3/emulate", body));
}

process.stdout.write(JSON.stringify(out));
