/// The version of Sketchwise, compared with a hosted model's `minimumSketchwiseVersion`.
public enum SketchwiseVersion {
    public static let current = "0.12.0"
}
