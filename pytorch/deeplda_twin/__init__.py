"""The PyTorch twin of deeplda's image model: the paper's ConvNet, the LDA
heads (spherical, diagonal, full) and the softmax head, the NLL/CE/DNLL
losses, the data sets' files and normalisation, metrics and safetensors
checkpoints with the reference parameter names (enc.conv1.weight,
enc.bn1.running_var, head.mu, head.log_var, head.raw_tril, head.linear.weight).

pytorch/train.py trains it with torchrun; bench/pytorch_*.py import it.
"""
