package config

// Kind is the kind of form control of a field.
type Kind int

// Control kinds.
const (
	Select Kind = iota
	Number
	Text
	Checkbox
)

// Field describes one setting: its query key (the native command's flag
// name where one exists), its control and the demos that show it.
type Field struct {
	Name    string // query key and control name
	Label   string
	Help    string // a short hint shown as the control's title
	Kind    Kind
	Options []string // for Select
	// Step is the number input's step attribute ("any" for reals).
	Step string
	// Advanced fields sit in the collapsed "more settings" group.
	Advanced bool
	// Demos that show the control; nil means every trainable demo. A field
	// hidden in a demo keeps its value and is still read from the URL.
	Demos []Demo
}

// Fields lists the settings in the order of the form.
var Fields = []Field{
	{Name: "data", Label: "Data set", Kind: Select, Options: []string{"fashion-mnist", "mnist", "cifar10", "cifar100"},
		Help: "the image data set: hosted by this site, or from files you choose below", Demos: []Demo{Images}},
	{Name: "head", Label: "Head", Kind: Select, Options: []string{"lda", "softmax"},
		Help: "lda: the Gaussian (LDA) head; softmax: a linear softmax head (trains with ce)", Demos: []Demo{Images}},
	{Name: "loss", Label: "Loss", Kind: Select, Options: []string{"dnll", "ce", "nll"},
		Help: "dnll: -δ_y + λ Σ_c exp(δ_c); ce: cross-entropy on δ; nll: maximum likelihood -δ_y", Demos: []Demo{Classical, Deep, Images}},
	{Name: "compare", Label: "Side by side", Kind: Checkbox,
		Help: "train every loss of this demo with the same settings and show them side by side", Demos: []Demo{Classical, Deep}},
	{Name: "lambda", Label: "λ (DNLL)", Kind: Number, Step: "any", Help: "weight of the DNLL density penalty, a number >= 0", Demos: []Demo{Classical, Deep, Images}},
	{Name: "lambdas", Label: "λ values", Kind: Text, Help: "comma-separated list of λ values (1 to 12 numbers > 0)", Demos: []Demo{Sweep}},
	{Name: "cov", Label: "Covariance", Kind: Select, Options: []string{"full", "diag", "spherical"}, Help: "parameterisation of the shared covariance Σ"},
	{Name: "epochs", Label: "Epochs", Kind: Number, Step: "1", Help: "passes over the training set (at least 1)"},
	{Name: "batch", Label: "Batch", Kind: Number, Step: "1", Help: "examples per Adam step (at least 1; the training-set size means full batch)"},
	{Name: "limit-train", Label: "Training images", Kind: Number, Step: "1", Help: "train on the first N training images (0: all; on the CPU the browser trains about ten images a second with WebAssembly SIMD, a few without)", Demos: []Demo{Images}},
	{Name: "limit-test", Label: "Test images", Kind: Number, Step: "1", Help: "evaluate on the first N test images (0: all)", Demos: []Demo{Images}},
	{Name: "seed", Label: "Seed", Kind: Number, Step: "1", Help: "seed of the initialisation and the shuffling (a whole number >= 0)"},
	{Name: "backend", Label: "Backend", Kind: Select, Options: []string{"auto", "webgpu", "cpu"}, Help: "auto: WebGPU when the browser offers an adapter, else the CPU"},
	{Name: "lr", Label: "Learning rate", Kind: Number, Step: "any", Advanced: true, Help: "Adam's learning rate (> 0)"},
	{Name: "encoder", Label: "Encoder", Kind: Select, Options: []string{"mlp", "none"}, Advanced: true, Help: "mlp: Deep LDA; none: classical LDA on the inputs", Demos: toyDemos},
	{Name: "train", Label: "Training points", Kind: Number, Step: "1", Advanced: true, Help: "size of the training set (at least 2)", Demos: toyDemos},
	{Name: "test", Label: "Test points", Kind: Number, Step: "1", Advanced: true, Help: "size of the test set (at least 1)", Demos: toyDemos},
	{Name: "data-seed", Label: "Data seed", Kind: Number, Step: "1", Advanced: true, Help: "seed of the data (the test set uses data-seed+1)", Demos: toyDemos},
}

// toyDemos are the demos on the toy data.
var toyDemos = []Demo{Classical, Deep, Sweep}

// Shown reports whether f's control appears in demo d.
func (f Field) Shown(d Demo) bool {
	if !Info(d).Trainable {
		return false
	}
	if f.Demos == nil {
		return true
	}
	for _, x := range f.Demos {
		if x == d {
			return true
		}
	}
	return false
}
