/// The inference runtime: model files, tensors, layers and kernels (see docs/model-format.md).
public enum SketchwiseNN {}
