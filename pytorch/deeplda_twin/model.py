"""The model: the paper's ConvNet encoder, the LDA and softmax heads and the
losses, with the parameter names and parameterisations of
../shared/golden/README.md (and of deeplda's model package)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

# MIN_SCALE is the floor on the diagonal of the full head's Cholesky factor.
MIN_SCALE = 1e-4

HEADS = ("lda", "softmax")
COVS = ("spherical", "diag", "full")
LOSSES = ("dnll", "ce", "nll")


class ConvNet(nn.Module):
    """The paper's encoder: three blocks of two 3x3 Conv-BN-ReLU (64, 128,
    256 channels), 2x2 max pool after blocks 1 and 2, global average pool,
    Linear(256, d)."""

    def __init__(self, cin, d):
        super().__init__()
        chans = [(cin, 64), (64, 64), (64, 128), (128, 128), (128, 256), (256, 256)]
        for i, (a, b) in enumerate(chans, 1):
            setattr(self, f"conv{i}", nn.Conv2d(a, b, 3, padding=1))
            setattr(self, f"bn{i}", nn.BatchNorm2d(b))
        self.proj = nn.Linear(256, d)

    def forward(self, x):
        for i in range(1, 7):
            x = F.relu(getattr(self, f"bn{i}")(getattr(self, f"conv{i}")(x)))
            if i in (2, 4):
                x = F.max_pool2d(x, 2)
        return self.proj(F.adaptive_avg_pool2d(x, 1).flatten(1))


def cholesky_from_raw(raw):
    """L = strict lower part of raw + diag(softplus(diag(raw)) + MIN_SCALE);
    Sigma = L L^T. Only the lower triangle of raw is used."""
    raw = torch.tril(raw)
    d = torch.diagonal(raw)
    return raw - torch.diag(d) + torch.diag(F.softplus(d) + MIN_SCALE)


class LDAHead(nn.Module):
    """The LDA head: priors pi = softmax(prior_logits), class means mu and one
    shared covariance Sigma (spherical: scalar log_var = log sigma^2;
    diag: log_var[d]; full: raw_tril[d, d], see cholesky_from_raw). forward
    returns delta_c(z) = log pi_c - 1/2 log det Sigma
    - 1/2 (z - mu_c)^T Sigma^-1 (z - mu_c), without the -(d/2) log 2pi term.

    Initialisation as the paper's: prior_logits 0, mu_c ~ N(0, 6^2/(2d))
    from the global generator, log_var 0 (sigma^2 = 1), raw_tril 0."""

    def __init__(self, classes, d, cov):
        super().__init__()
        if cov not in COVS:
            raise ValueError(f"unknown covariance {cov!r} (spherical, diag or full)")
        self.cov = cov
        self.prior_logits = nn.Parameter(torch.zeros(classes))
        self.mu = nn.Parameter(torch.randn(classes, d) * 6.0 / math.sqrt(2 * d))
        if cov == "spherical":
            self.log_var = nn.Parameter(torch.zeros(()))
        elif cov == "diag":
            self.log_var = nn.Parameter(torch.zeros(d))
        else:
            self.raw_tril = nn.Parameter(torch.zeros(d, d))

    def forward(self, z):
        diff = z[:, None, :] - self.mu[None, :, :]  # N, C, d
        d = z.shape[1]
        if self.cov == "spherical":
            m2 = (diff * diff).sum(-1) / torch.exp(self.log_var)
            logdet = d * self.log_var
        elif self.cov == "diag":
            m2 = (diff * diff / torch.exp(self.log_var)).sum(-1)
            logdet = self.log_var.sum()
        else:
            L = cholesky_from_raw(self.raw_tril)
            n, c, _ = diff.shape
            sol = torch.linalg.solve_triangular(L, diff.reshape(n * c, d).T, upper=False)
            m2 = (sol * sol).sum(0).reshape(n, c)
            logdet = 2.0 * torch.log(torch.diagonal(L)).sum()
        return F.log_softmax(self.prior_logits, 0)[None, :] - 0.5 * (m2 + logdet)

    @torch.no_grad()
    def gaussian(self):
        """Returns pi [C], mu [C, d] and Sigma [d, d] in float64 on the CPU."""
        d = self.mu.shape[1]
        if self.cov == "spherical":
            sigma = torch.exp(self.log_var.double().cpu()) * torch.eye(d, dtype=torch.float64)
        elif self.cov == "diag":
            sigma = torch.diag(torch.exp(self.log_var.double().cpu()))
        else:
            L = cholesky_from_raw(self.raw_tril).double().cpu()
            sigma = L @ L.T
        return torch.softmax(self.prior_logits.double().cpu(), 0), self.mu.double().cpu(), sigma


class SoftmaxHead(nn.Module):
    """The paper's baseline: Linear(d, C) whose outputs are the logits."""

    def __init__(self, d, classes):
        super().__init__()
        self.linear = nn.Linear(d, classes)

    def forward(self, z):
        return self.linear(z)


class DeepLDA(nn.Module):
    """An encoder (enc) and a head (head); forward returns the scores (delta
    for an LDA head, logits for softmax)."""

    def __init__(self, enc, head):
        super().__init__()
        self.enc, self.head = enc, head

    def forward(self, x):
        return self.head(self.enc(x))


def image_model(cin, classes, head="lda", cov="spherical"):
    """The paper's image model: ConvNet with d = classes-1 and the head.
    Parameters are drawn from the global generator, encoder first."""
    if head not in HEADS:
        raise ValueError(f"unknown head {head!r} (lda or softmax)")
    d = classes - 1
    enc = ConvNet(cin, d)
    return DeepLDA(enc, LDAHead(classes, d, cov) if head == "lda" else SoftmaxHead(d, classes))


def dnll(delta, y, lam):
    """DNLL: mean over the batch of -delta_y + lambda * sum_c exp(delta_c)."""
    return (-delta.gather(1, y[:, None]).squeeze(1) + lam * delta.exp().sum(1)).mean()


def nll(delta, y):
    """NLL: mean of -delta_y."""
    return (-delta.gather(1, y[:, None]).squeeze(1)).mean()


def loss_fn(name, lam):
    """Returns the loss of the scores and labels named dnll, ce or nll."""
    if name == "dnll":
        return lambda s, y: dnll(s, y, lam)
    if name == "ce":
        return F.cross_entropy
    if name == "nll":
        return nll
    raise ValueError(f"unknown loss {name!r} (dnll, ce or nll)")
