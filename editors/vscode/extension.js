// The Harn extension: starts `harn lsp` (the executable named by the
// harn.path setting) for .harn files and hands it to VS Code's language
// client. Everything else (diagnostics, completion, formatting, fixes) is
// the server's.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("harn").get("path") || "harn";
  const serverOptions = { command, args: ["lsp"] };
  const clientOptions = {
    documentSelector: [{ scheme: "file", language: "harn" }],
    synchronize: {
      fileEvents: vscode.workspace.createFileSystemWatcher("**/*.harn"),
    },
  };
  client = new LanguageClient("harn", "Harn", serverOptions, clientOptions);
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
