// Drives a running tonql as a wallet does, with the ecosystem's own clients
// unchanged: @ton/ton's TonClient (getContractState, WalletContractV4/V5R1
// getSeqno through runGetMethod, estimateExternalMessageFee, sendFile) and
// tonweb's HttpProvider and wallet contracts; and estimates the external
// messages of a replayed block through both clients.
//
//   node wallet.mjs <input.json>
//
// input: {"endpoint": ".../api/v2/jsonRPC",
//         "replay": [{"address": "0:...", "body": "<base64 BOC>"}],
//         "v4": {"address": "0:...", "publicKey": "<hex>"},
//         "v5": {"address": "0:...", "publicKey": "<hex>"},
//         "recipient": "0:..."}
// prints one JSON object: case name -> {"value": ...} or {"error": "..."}.
// Exit code 0 whenever every call returned; the caller judges the answers.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Address, Cell, SendMode, beginCell, external, internal, storeMessage, toNano } from "@ton/core";
import { keyPairFromSeed } from "@ton/crypto";
import { TonClient, WalletContractV4, WalletContractV5R1 } from "@ton/ton";
import { out, run } from "./cases.mjs";

const TonWeb = createRequire(import.meta.url)("tonweb");

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const client = new TonClient({ endpoint: input.endpoint, timeout: 30_000 });
const provider = new TonWeb.HttpProvider(input.endpoint);

// The block's external messages, estimated by both clients.
for (const [i, m] of input.replay.entries()) {
  await run(`replay/ton/${i}`, async () =>
    (await client.estimateExternalMessageFee(Address.parse(m.address), {
      body: Cell.fromBase64(m.body), initCode: null, initData: null, ignoreSignature: true,
    })).source_fees);
  await run(`replay/tonweb/${i}`, async () =>
    (await provider.getEstimateFee({ address: m.address, body: m.body, init_code: "", init_data: "", ignore_chksig: true })).source_fees);
}

// A key that is not the wallets' (their owners keep theirs): estimates
// ignore signatures, as wallets ask them to.
const stranger = keyPairFromSeed(Buffer.alloc(32, 9));
const recipient = Address.parse(input.recipient);

// @ton/ton: the flow of a wallet app.
await run("ton/masterchain", async () => {
  const mc = await client.getMasterchainInfo();
  return { latestSeqno: mc.latestSeqno, workchain: mc.workchain, shard: mc.shard, initSeqno: mc.initSeqno };
});
for (const [name, make] of [
  ["v4", (pk) => WalletContractV4.create({ workchain: 0, publicKey: pk })],
  ["v5", (pk) => WalletContractV5R1.create({ workchain: 0, publicKey: pk })],
]) {
  const w = input[name];
  const contract = make(Buffer.from(w.publicKey, "hex"));
  const wallet = client.open(contract);
  await run(`ton/${name}/address`, async () => contract.address.toRawString());
  await run(`ton/${name}/state`, async () => {
    const s = await client.getContractState(contract.address);
    return { state: s.state, balance: s.balance.toString(), hasCode: s.code !== null, hasData: s.data !== null,
      lastLt: s.lastTransaction?.lt ?? null };
  });
  await run(`ton/${name}/balance`, async () => (await wallet.getBalance()).toString());
  let seqno = null;
  await run(`ton/${name}/seqno`, async () => (seqno = await wallet.getSeqno()));
  const transfer = () => contract.createTransfer({
    seqno: seqno ?? 0, secretKey: stranger.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY,
    messages: [internal({ to: recipient, value: toNano("0.01"), body: "tonql wallet flow" })],
  });
  await run(`ton/${name}/fee`, async () =>
    (await client.estimateExternalMessageFee(contract.address, {
      body: transfer(), initCode: null, initData: null, ignoreSignature: true,
    })).source_fees);
  // sending: sendTransfer checks the state and hands the message to sendFile
  await run(`ton/${name}/send`, async () => {
    await wallet.sendTransfer({ seqno: seqno ?? 0, secretKey: stranger.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY,
      messages: [internal({ to: recipient, value: toNano("0.01"), body: "tonql wallet flow" })] });
    return "sent";
  });
  await run(`ton/${name}/sendFile`, async () => {
    const msg = external({ to: contract.address, body: transfer() });
    await client.sendFile(beginCell().store(storeMessage(msg)).endCell().toBoc());
    return "sent";
  });
}

// tonweb: its wallet contracts and provider calls.
const hex = (s) => Uint8Array.from(Buffer.from(s, "hex"));
const tonweb = new TonWeb(provider);
const v4 = new tonweb.wallet.all.v4R2(provider, { publicKey: hex(input.v4.publicKey), wc: 0 });
await run("tonweb/v4/address", async () => (await v4.getAddress()).toString(false));
await run("tonweb/v4/walletInfo", async () => {
  const i = await provider.getWalletInfo(input.v4.address);
  return { wallet: i.wallet, seqno: i.seqno, account_state: i.account_state, wallet_type: i.wallet_type, wallet_id: i.wallet_id };
});
await run("tonweb/v4/balance", async () => String(await provider.getBalance(input.v4.address)));
await run("tonweb/v4/addressInfo", async () => (await provider.getAddressInfo(input.v4.address)).state);
let webSeqno = null;
await run("tonweb/v4/seqno", async () => (webSeqno = await v4.methods.seqno().call()));
const webTransfer = () => v4.methods.transfer({
  secretKey: stranger.secretKey, toAddress: input.recipient, amount: TonWeb.utils.toNano("0.01"),
  seqno: webSeqno ?? 0, payload: "tonql wallet flow", sendMode: 3,
});
await run("tonweb/v4/fee", async () => (await webTransfer().estimateFee()).source_fees);
await run("tonweb/v4/send", async () => { await webTransfer().send(); return "sent"; });
await run("tonweb/masterchain", async () => (await provider.getMasterchainInfo()).last.seqno);

process.stdout.write(JSON.stringify(out) + "\n");
