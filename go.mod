module github.com/gorigid/gorigid

go 1.26

require (
	github.com/go-gl/mathgl v1.2.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)
