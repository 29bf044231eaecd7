import CCairo
import CFreeType

/// Renders single emoji of a colour font (such as Noto Color Emoji) with Cairo and FreeType by a
/// ``PictureRecipe`` into N×N outlines (ink 255 on 0) and colour thumbnails. Owns its own FreeType
/// library and face: not thread-safe, use one per thread.
public final class EmojiRasterizer {
    private let canvas: PictureCanvas
    private let face: FT_Face
    private let fontFace: OpaquePointer
    private let scaledFont: OpaquePointer
    /// The font size glyphs are measured and drawn at, in the glyph's own coordinates.
    private static let fontSize = 128.0

    /// - Throws: ``RasterError`` when the font cannot be read or a size is out of range.
    public init(fontPath: String, size: Int, recipe: PictureRecipe = .outline, thumbnailSize: Int = 96) throws(RasterError) {
        canvas = try PictureCanvas(size: size, recipe: recipe, thumbnailSize: thumbnailSize)
        let font = try FreeTypeFont(path: fontPath)
        face = font.face
        fontFace = try font.makeCairoFontFace()
        var matrix = cairo_matrix_t(), identity = cairo_matrix_t()
        cairo_matrix_init_scale(&matrix, Self.fontSize, Self.fontSize)
        cairo_matrix_init_identity(&identity)
        let options = cairo_font_options_create()
        defer { cairo_font_options_destroy(options) }
        guard let scaledFont = cairo_scaled_font_create(fontFace, &matrix, &identity, options),
              cairo_scaled_font_status(scaledFont) == CAIRO_STATUS_SUCCESS
        else {
            cairo_font_face_destroy(fontFace)
            throw RasterError("\(fontPath): cairo cannot use this font")
        }
        self.scaledFont = scaledFont
    }

    deinit {
        cairo_scaled_font_destroy(scaledFont)
        cairo_font_face_destroy(fontFace)
    }

    public var size: Int { canvas.size }

    /// Whether the font has a glyph of its own for `scalar`.
    public func hasGlyph(_ scalar: Unicode.Scalar) -> Bool {
        FT_Get_Char_Index(face, FT_ULong(scalar.value)) != 0
    }

    /// Renders the font's glyph for `scalar`.
    /// - Throws: ``PictureError`` when the font has no such glyph or it shows nothing.
    public func render(_ scalar: Unicode.Scalar) throws(PictureError) -> RenderedPicture {
        let (width, height, drawing) = try glyph(scalar)
        return try canvas.render(width: width, height: height, drawing)
    }

    /// The glyph in colour, cropped to its ink, longer side `maxSide` pixels.
    /// - Throws: ``PictureError`` as ``render(_:)``.
    public func picture(_ scalar: Unicode.Scalar, maxSide: Int) throws(PictureError) -> PicturePNG {
        let (width, height, drawing) = try glyph(scalar)
        return try canvas.picture(width: width, height: height, maxSide: maxSide, drawing)
    }

    /// The glyph's size and how to draw it with its top-left corner at the origin.
    private func glyph(_ scalar: Unicode.Scalar) throws(PictureError) -> (Double, Double, PictureCanvas.Drawing) {
        let code = "U+" + String(scalar.value, radix: 16, uppercase: true)
        let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
        guard index != 0 else { throw PictureError(.unreadable, "the font has no glyph for \(code)") }
        var glyph = cairo_glyph_t(index: UInt(index), x: 0, y: 0)
        var extents = cairo_text_extents_t()
        cairo_scaled_font_glyph_extents(scaledFont, &glyph, 1, &extents)
        glyph.x = -extents.x_bearing
        glyph.y = -extents.y_bearing
        let font = scaledFont
        return (extents.width, extents.height, { cr in
            cairo_set_scaled_font(cr, font)
            cairo_show_glyphs(cr, &glyph, 1)
        })
    }
}

/// A FreeType library and one face of a font file. Once a Cairo font face is made from it, Cairo
/// owns it and frees it when it releases that font face (Cairo may keep font faces in its caches
/// after their last user has gone).
private final class FreeTypeFont {
    let library: FT_Library
    let face: FT_Face

    init(path: String) throws(RasterError) {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else { throw RasterError("cannot start FreeType") }
        var face: FT_Face?
        guard FT_New_Face(library, path, 0, &face) == 0, let face else {
            FT_Done_FreeType(library)
            throw RasterError("\(path): not a font FreeType can read")
        }
        self.library = library
        self.face = face
    }

    deinit {
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }

    /// A Cairo font face of this face with colour glyphs, owning `self`.
    func makeCairoFontFace() throws(RasterError) -> OpaquePointer {
        guard let fontFace = cairo_ft_font_face_create_for_ft_face(face, Int32(FT_LOAD_COLOR)) else {
            throw RasterError("cairo cannot make a font face")
        }
        let owner = Unmanaged.passRetained(self).toOpaque()
        // Cairo only compares user-data keys by address; the owner's address is unique.
        let key = UnsafePointer<cairo_user_data_key_t>(OpaquePointer(owner))
        let status = cairo_font_face_set_user_data(fontFace, key, owner) { owner in
            if let owner { Unmanaged<FreeTypeFont>.fromOpaque(owner).release() }
        }
        guard status == CAIRO_STATUS_SUCCESS else {
            Unmanaged<FreeTypeFont>.fromOpaque(owner).release()
            cairo_font_face_destroy(fontFace)
            throw RasterError("cairo cannot keep the font")
        }
        return fontFace
    }
}
