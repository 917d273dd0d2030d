// Package formview is the capability form screen: it draws a form.Form as
// rows, validates on every change, shows each problem under its field and
// answers the root with typed actions (ActionSubmit, ActionSavePreset,
// ActionBack). docs/internals.md "Forms" lists its editing rules.
package formview
