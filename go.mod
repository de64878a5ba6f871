module github.com/deeplda/deeplda

go 1.26.8

require (
	golang.org/x/sys v0.49.0
	gonum.org/v1/gonum v0.17.0
)

require github.com/cogentcore/webgpu v0.23.0 // indirect
