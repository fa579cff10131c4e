/// A property wrapper that keeps its state in a cell object.
protocol SpellCellHolder {
    var cellObject: AnyObject { get }
}

/// A cell that can tell the name of the property it serves.
@usableFromInline
protocol SpellCellNaming: AnyObject {
    func propertyName(_ keyPath: AnyKeyPath?, in object: AnyObject) -> String
}

extension Lazy: SpellCellHolder {
    var cellObject: AnyObject { cell }
}

extension Injectable: SpellCellHolder {
    var cellObject: AnyObject { cell }
}

extension Partial: SpellCellHolder {
    var cellObject: AnyObject { cell }
}
