// Package config says where modbay's things live (home, workspace, state,
// artifact store) and reads the host policy from <home>/config.yaml.
package config
