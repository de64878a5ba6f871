module github.com/deeplda/deeplda

go 1.26.8

require (
	github.com/cogentcore/webgpu v0.23.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
	honnef.co/go/js/dom/v2 v2.0.0-20250304181735-b5e52f05e89d // indirect
)
