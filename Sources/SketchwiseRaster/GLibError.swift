import CGdkPixbuf
import CRSVG

/// GLib's error reports, as librsvg and gdk-pixbuf give them.
package enum GLibError {
    /// The message of `error`, which is freed.
    package static func message(consuming error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "no reason given" }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) } ?? "no reason given"
    }
}
