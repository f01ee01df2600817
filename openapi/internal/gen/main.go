// Command gen writes openapi.json from openapi.yaml (go generate ./openapi).
package main

import (
	"log"
	"os"

	"github.com/tonql/tonql/openapi/internal/yamljson"
)

func main() {
	src, err := os.ReadFile("openapi.yaml")
	if err != nil {
		log.Fatal(err)
	}
	out, err := yamljson.Convert(src)
	if err != nil {
		log.Fatal("openapi.yaml: ", err)
	}
	if err := os.WriteFile("openapi.json", out, 0o644); err != nil {
		log.Fatal(err)
	}
}
