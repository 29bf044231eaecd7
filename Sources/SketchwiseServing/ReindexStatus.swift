/// Where a re-index for a new raster model stands, for `GET /api/models`.
package struct ReindexStatus: Sendable, Encodable, Equatable {
    /// `name@version` of the raster model being indexed for.
    package var model: String
    package var done: Int
    package var total: Int

    package init(model: String, done: Int, total: Int) {
        self.model = model
        self.done = done
        self.total = total
    }
}
