package main

import (
	"fmt"
	"os"
)

type Item struct {
	SKU   string
	Price float64
}

func (i Item) String() string {
	return fmt.Sprintf("%s (%.2f)", i.SKU, i.Price)
}

func main() {
	items := []Item{{"apple", 0.5}, {"pear", 0.75}}
	for _, item := range items {
		fmt.Println(item)
	}
	if len(os.Args) > 1 {
		os.Exit(1)
	}
}
