// The rulekit extension: highlighting comes from the grammar (package.json); this starts the
// language server, `rulekit lsp`, over stdio for every .rk file. The command is the setting
// rulekit.command (default: rulekit lsp, i.e. rulekit on the PATH).
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace
    .getConfiguration("rulekit")
    .get("command", ["rulekit", "lsp"]);
  const server = { command, args, transport: TransportKind.stdio };
  client = new LanguageClient(
    "rulekit",
    "rulekit",
    { run: server, debug: server },
    {
      documentSelector: [{ scheme: "file", language: "rulekit" }],
    }
  );
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
