package main

import (
	"fmt"
	"os"

	"modbay/render"
)

func main() {
	src, _ := os.ReadFile(os.Args[2])
	out, err := render.Artifact(src, render.Meta{MediaType: os.Args[3], Presentation: os.Args[1]}, render.Options{Width: 70, NoColor: true})
	fmt.Println(out, err)
}
