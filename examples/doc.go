// Package examples holds modbay's built-in example modules (notes, fetch,
// transcode, render-farm): real modules run by re-executing the modbay
// binary as `modbay example-module <id> module …`, so they cross the same
// wire as any module (docs/protocol.md §3, §4, §6, §8). InstallDemoHome lays
// them out in a home with launchers, bundle files and a seeded workspace.
package examples
