// Command hello is bench/run's baseline: the smallest Go program that
// writes to its terminal, built with the same toolchain and flags as
// modbay, so a ratio against it is modbay's own start-up cost.
package main

import "os"

func main() {
	os.Stdout.WriteString("hello, world\n")
}
