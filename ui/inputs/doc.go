// Package inputs remembers what a person sent to each capability: the last
// input, named presets and a draft kept when the cockpit quit with the form
// unsent, one JSON file per capability under
// <home>/inputs/<module>/<capability>.json. It does file I/O
// and nothing else; the cockpit calls it from tea.Cmds, never in Update.
package inputs
