// Previews, on a running tonql, a TON Connect request from a highload v3
// wallet and the same transfer signed as tonweb's HighloadWalletContractV3
// writes it (@ton/ton and @ton/core have no highload wallet).
//
//   node highload.mjs <input.json>
//
// input: {"base": "http://host:port", "address": "0:...", "publicKey": "<hex>",
//         "walletId": n, "timeout": s, "shift": n, "bitNumber": n, "createdAt": unix,
//         "recipient": "0:...", "validUntil": unix}
// prints one JSON object: case name -> {"value": ...} or {"error": "..."}.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Address, beginCell, toNano } from "@ton/core";
import { keyPairFromSeed } from "@ton/crypto";
import { out, run, postJSON, fees } from "./cases.mjs";

const TonWeb = createRequire(import.meta.url)("tonweb");
const { HighloadWalletContractV3, HighloadQueryId } = TonWeb.HighloadWallets;
const input = JSON.parse(readFileSync(process.argv[2], "utf8"));

const post = (path, body) => postJSON(input.base, path, body);

// previews skip the signature check, so any key makes the same message
const stranger = keyPairFromSeed(Buffer.alloc(32, 7));
const recipient = Address.parse(input.recipient);
const comment = beginCell().storeUint(0, 32).storeStringTail("tonql highload preview").endCell();
const amount = toNano("0.05");

await run("tonconnect", async () => fees(await post("/api/v3/emulate", {
  from: input.address, valid_until: input.validUntil, network: "-239",
  messages: [{ address: recipient.toString({ bounceable: false }), amount: amount.toString(),
    payload: comment.toBoc().toString("base64") }],
})));

await run("signed", async () => {
  const wallet = new HighloadWalletContractV3(null, {
    address: input.address, publicKey: Buffer.from(input.publicKey, "hex"),
    walletId: input.walletId, timeout: input.timeout,
  });
  const payload = new TonWeb.boc.Cell();
  payload.bits.writeUint(0, 32);
  payload.bits.writeString("tonql highload preview");
  const m = await wallet.createTransferMessage(new Uint8Array(stranger.secretKey),
    recipient.toString({ bounceable: false }), amount.toString(),
    HighloadQueryId.fromShiftAndBitNumber(BigInt(input.shift), BigInt(input.bitNumber)),
    payload, 3, input.createdAt);
  const boc = Buffer.from(await m.message.toBoc(false)).toString("base64");
  return fees(await post("/api/v3/emulate", { boc, ignore_chksig: true }));
});

console.log(JSON.stringify(out));
