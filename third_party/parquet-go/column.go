package parquet

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"reflect"

	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"
	"github.com/parquet-go/parquet-go/internal/memory"
)

// Column represents a column in a parquet file.
//
// Methods of Column values are safe to call concurrently from multiple
// goroutines.
//
// Column instances satisfy the Node interface.
type Column struct {
	typ         Type
	file        *File
	schema      *format.SchemaElement
	order       *format.ColumnOrder
	path        columnPath
	fields      []Field
	columns     []*Column
	chunks      []*format.ColumnChunk
	columnIndex []*format.ColumnIndex
	offsetIndex []*format.OffsetIndex
	encoding    encoding.Encoding
	compression compress.Codec

	depth              byte
	maxRepetitionLevel byte
	maxDefinitionLevel byte
	index              uint16
}

// Type returns the type of the column.
//
// The returned value is unspecified if c is not a leaf column.
func (c *Column) Type() Type { return c.typ }

// Optional returns true if the column is optional.
func (c *Column) Optional() bool { return schemaRepetitionTypeOf(c.schema) == format.Optional }

// Repeated returns true if the column may repeat.
func (c *Column) Repeated() bool { return schemaRepetitionTypeOf(c.schema) == format.Repeated }

// Required returns true if the column is required.
func (c *Column) Required() bool { return schemaRepetitionTypeOf(c.schema) == format.Required }

// Leaf returns true if c is a leaf column.
func (c *Column) Leaf() bool { return isLeafSchemaElement(c.schema) }

// Fields returns the list of fields on the column.
func (c *Column) Fields() []Field { return c.fields }

// Encoding returns the encodings used by this column.
func (c *Column) Encoding() encoding.Encoding { return c.encoding }

// Compression returns the compression codecs used by this column.
func (c *Column) Compression() compress.Codec { return c.compression }

// Path of the column in the parquet schema.
func (c *Column) Path() []string { return c.path[1:] }

// Name returns the column name.
func (c *Column) Name() string { return c.schema.Name }

// ID returns column field id
func (c *Column) ID() int { return int(c.schema.FieldID) }

// Columns returns the list of child columns.
//
// The method returns the same slice across multiple calls, the program must
// treat it as a read-only value.
func (c *Column) Columns() []*Column { return c.columns }

// Column returns the child column matching the given name.
func (c *Column) Column(name string) *Column {
	for _, child := range c.columns {
		if child.Name() == name {
			return child
		}
	}
	return nil
}

// Pages returns a reader exposing all pages in this column, across row groups.
func (c *Column) Pages() Pages {
	if c.file == nil {
		return emptyPages{}
	}
	return c.PagesFrom(c.file.reader)
}

func (c *Column) PagesFrom(reader io.ReaderAt) Pages {
	if c.index == math.MaxUint16 || c.file == nil {
		return emptyPages{}
	}
	r := &columnPages{
		pages: make([]FilePages, len(c.file.rowGroups)),
	}
	for i := range r.pages {
		r.pages[i].init(c.file.rowGroups[i].(*FileRowGroup).columns[c.index].(*FileColumnChunk), reader)
	}
	return r
}

type columnPages struct {
	pages []FilePages
	index int
}

func (c *columnPages) ReadPage() (Page, error) {
	for {
		if c.index >= len(c.pages) {
			return nil, io.EOF
		}
		p, err := c.pages[c.index].ReadPage()
		if err == nil || err != io.EOF {
			return p, err
		}
		c.index++
	}
}

func (c *columnPages) SeekToRow(rowIndex int64) error {
	c.index = 0

	for c.index < len(c.pages) && c.pages[c.index].chunk.rowGroup.NumRows < rowIndex {
		rowIndex -= c.pages[c.index].chunk.rowGroup.NumRows
		c.index++
	}

	if c.index < len(c.pages) {
		if err := c.pages[c.index].SeekToRow(rowIndex); err != nil {
			return err
		}
		for i := c.index + 1; i < len(c.pages); i++ {
			p := &c.pages[i]
			if err := p.SeekToRow(0); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *columnPages) Close() error {
	var lastErr error

	for i := range c.pages {
		if err := c.pages[i].Close(); err != nil {
			lastErr = err
		}
	}

	c.pages = nil
	c.index = 0
	return lastErr
}

// Depth returns the position of the column relative to the root.
func (c *Column) Depth() int { return int(c.depth) }

// MaxRepetitionLevel returns the maximum value of repetition levels on this
// column.
func (c *Column) MaxRepetitionLevel() int { return int(c.maxRepetitionLevel) }

// MaxDefinitionLevel returns the maximum value of definition levels on this
// column.
func (c *Column) MaxDefinitionLevel() int { return int(c.maxDefinitionLevel) }

// Index returns the position of the column in a row. Only leaf columns have a
// column index, the method returns -1 when called on non-leaf columns.
func (c *Column) Index() int {
	if c.index == math.MaxUint16 {
		return -1
	}
	return int(c.index)
}

// GoType returns the Go type that best represents the parquet column.
func (c *Column) GoType() reflect.Type { return goTypeOf(c) }

// Value returns the sub-value in base for the child column at the given
// index.
func (c *Column) Value(base reflect.Value) reflect.Value {
	return base.MapIndex(reflect.ValueOf(&c.schema.Name).Elem())
}

// String returns a human-readable string representation of the column.
func (c *Column) String() string { return c.path.String() + ": " + sprint(c.Name(), c) }

func (c *Column) forEachLeaf(do func(*Column)) {
	if isLeafSchemaElement(c.schema) {
		do(c)
	} else {
		for _, child := range c.columns {
			child.forEachLeaf(do)
		}
	}
}

func openColumns(file *File, metadata *format.FileMetaData, columnIndexes []format.ColumnIndex, offsetIndexes []format.OffsetIndex) (*Column, error) {
	cl := columnLoader{}
	cl.reserve(metadata, columnIndexes, offsetIndexes)

	c, err := cl.open(file, metadata, columnIndexes, offsetIndexes, nil)
	if err != nil {
		return nil, err
	}

	// Validate that there aren't extra entries in the row group columns,
	// which would otherwise indicate that there are dangling data pages
	// in the file.
	for index, rowGroup := range metadata.RowGroups {
		if cl.rowGroupColumnIndex != len(rowGroup.Columns) {
			return nil, fmt.Errorf("row group at index %d contains %d columns but %d were referenced by the column schemas",
				index, len(rowGroup.Columns), cl.rowGroupColumnIndex)
		}
	}

	_, err = c.setLevels(0, 0, 0, 0)
	return c, err
}

func (c *Column) setLevels(depth, repetition, definition, index int) (int, error) {
	if depth > MaxColumnDepth {
		return -1, fmt.Errorf("cannot represent parquet columns with more than %d nested levels: %s", MaxColumnDepth, c.path)
	}
	if index > MaxColumnIndex {
		return -1, fmt.Errorf("cannot represent parquet rows with more than %d columns: %s", MaxColumnIndex, c.path)
	}
	if repetition > MaxRepetitionLevel {
		return -1, fmt.Errorf("cannot represent parquet columns with more than %d repetition levels: %s", MaxRepetitionLevel, c.path)
	}
	if definition > MaxDefinitionLevel {
		return -1, fmt.Errorf("cannot represent parquet columns with more than %d definition levels: %s", MaxDefinitionLevel, c.path)
	}

	// Only non-root columns have a well defined repetition_type
	if depth > 0 {
		switch schemaRepetitionTypeOf(c.schema) {
		case format.Optional:
			definition++
		case format.Repeated:
			repetition++
			definition++
		}
	}

	c.depth = byte(depth)
	c.maxRepetitionLevel = byte(repetition)
	c.maxDefinitionLevel = byte(definition)
	depth++

	// Only leaf columns get a column index.
	if isLeafSchemaElement(c.schema) {
		c.index = uint16(index)
		index++
	} else {
		// Groups (including empty groups) don't get a column index
		c.index = math.MaxUint16
	}

	var err error
	for _, child := range c.columns {
		if index, err = child.setLevels(depth, repetition, definition, index); err != nil {
			return -1, err
		}
	}
	return index, nil
}

type columnLoader struct {
	schemaIndex         int
	columnOrderIndex    int
	rowGroupColumnIndex int

	// The shape of the column tree is fully determined by the schema, so its
	// parts are allocated once here and handed out in slices as the tree is
	// built. A file with C schema elements, L of them leaves, and R row groups
	// used to cost C + 2*(C-1) + 3*L allocations; it now costs six.
	columns     []Column
	children    []*Column
	fields      []Field
	chunks      []*format.ColumnChunk
	columnIndex []*format.ColumnIndex
	offsetIndex []*format.OffsetIndex
	// paths backs every column's path. A column's path is its parent's path
	// plus its own name, so the segments across the whole tree sum to a size
	// the schema determines up front.
	paths []string
}

func (cl *columnLoader) reserve(metadata *format.FileMetaData, columnIndexes []format.ColumnIndex, offsetIndexes []format.OffsetIndex) {
	numColumns := len(metadata.Schema)
	if numColumns == 0 {
		return
	}
	// Walk the schema in its depth-first order to count leaves and to sum the
	// path lengths: a node at depth d has a path of d+1 names, and remaining
	// tracks how many children are still open at each ancestor level, so its
	// length is the current depth.
	numLeaves := 0
	pathSegments := 0
	// remaining tracks the open-children counts per ancestor level; its cap
	// keeps the common shallow schema on the stack, a deeper one grows to heap.
	remaining := make([]int32, 0, 16)
	for i := range metadata.Schema {
		pathSegments += len(remaining) + 1
		if isLeafSchemaElement(&metadata.Schema[i]) {
			numLeaves++
		}
		if n := metadata.Schema[i].NumChildren; n.Valid && n.V > 0 {
			remaining = append(remaining, n.V)
		} else {
			// A leaf closes itself and any ancestors whose last child it was.
			for len(remaining) > 0 {
				remaining[len(remaining)-1]--
				if remaining[len(remaining)-1] > 0 {
					break
				}
				remaining = remaining[:len(remaining)-1]
			}
		}
	}
	numRowGroups := len(metadata.RowGroups)

	cl.columns = make([]Column, numColumns)
	// Every column but the root is a child of exactly one group, and appears
	// once in that group's fields.
	cl.children = make([]*Column, numColumns-1)
	cl.fields = make([]Field, numColumns-1)
	cl.paths = make([]string, pathSegments)

	if n := numLeaves * numRowGroups; n > 0 {
		cl.chunks = make([]*format.ColumnChunk, n)
		if len(columnIndexes) > 0 {
			cl.columnIndex = make([]*format.ColumnIndex, n)
		}
		if len(offsetIndexes) > 0 {
			cl.offsetIndex = make([]*format.OffsetIndex, n)
		}
	}
}

// allocate cuts the first n elements off the front of the slab and returns them
// with their capacity clamped, so that appending to the result cannot reach into
// the rest of the slab.
//
// The caller must have reserved room for n; a slab shorter than that is a
// programming error and panics. Every slab is sized from the schema, and the
// only value the schema does not bound is a group's NumChildren, which open
// checks against the children slab before allocating from it.
func allocate[T any](slab *[]T, n int) []T {
	taken := (*slab)[:n:n]
	*slab = (*slab)[n:]
	return taken
}

func (cl *columnLoader) open(file *File, metadata *format.FileMetaData, columnIndexes []format.ColumnIndex, offsetIndexes []format.OffsetIndex, path []string) (*Column, error) {
	if cl.schemaIndex >= len(cl.columns) {
		return nil, fmt.Errorf("column schema index %d is out of range: %d >= %d",
			cl.schemaIndex, cl.schemaIndex, len(cl.columns))
	}
	c := &cl.columns[cl.schemaIndex]
	c.file = file
	c.schema = &metadata.Schema[cl.schemaIndex]

	// A column's path is its parent's path plus its own name, cut from the
	// shared slab rather than concatenated into a fresh slice per column.
	p := allocate(&cl.paths, len(path)+1)
	copy(p, path)
	p[len(path)] = c.schema.Name
	c.path = columnPath(p)

	cl.schemaIndex++
	numChildren := 0
	if c.schema.NumChildren.Valid {
		numChildren = int(c.schema.NumChildren.V)
	}

	if isLeafSchemaElement(c.schema) {
		c.typ = schemaElementTypeOf(c.schema)

		if cl.columnOrderIndex < len(metadata.ColumnOrders) {
			c.order = &metadata.ColumnOrders[cl.columnOrderIndex]
			cl.columnOrderIndex++
		}

		rowGroups := metadata.RowGroups
		rowGroupColumnIndex := cl.rowGroupColumnIndex
		cl.rowGroupColumnIndex++

		c.chunks = allocate(&cl.chunks, len(rowGroups))

		for i, rowGroup := range rowGroups {
			if rowGroupColumnIndex >= len(rowGroup.Columns) {
				return nil, fmt.Errorf("row group at index %d does not have enough columns", i)
			}
			c.chunks[i] = &rowGroup.Columns[rowGroupColumnIndex]
		}

		if len(columnIndexes) > 0 {
			c.columnIndex = allocate(&cl.columnIndex, len(rowGroups))
			for i := range rowGroups {
				if rowGroupColumnIndex >= len(columnIndexes) {
					return nil, fmt.Errorf("row group at index %d does not have enough column index pages", i)
				}
				c.columnIndex[i] = &columnIndexes[rowGroupColumnIndex]
			}
		}

		if len(offsetIndexes) > 0 {
			c.offsetIndex = allocate(&cl.offsetIndex, len(rowGroups))
			for i := range rowGroups {
				if rowGroupColumnIndex >= len(offsetIndexes) {
					return nil, fmt.Errorf("row group at index %d does not have enough offset index pages", i)
				}
				c.offsetIndex[i] = &offsetIndexes[rowGroupColumnIndex]
			}
		}

		if len(c.chunks) > 0 {
			// Pick the encoding and compression codec of the first chunk.
			//
			// Technically each column chunk may use a different compression
			// codec, and each page of the column chunk might have a different
			// encoding. Exposing these details does not provide a lot of value
			// to the end user.
			//
			// Programs that wish to determine the encoding and compression of
			// each page of the column should iterate through the pages and read
			// the page headers to determine which compression and encodings are
			// applied.
			for _, encoding := range c.chunks[0].MetaData.Encoding {
				// BIT_PACKED appears in the encodings list when the
				// deprecated bit-packed encoding was used for repetition
				// or definition levels. Encodings.md: "Note that the
				// BIT_PACKED encoding method is only supported for
				// encoding repetition and definition levels." It is never
				// a data page encoding, so it must not be reported as the
				// column encoding (it would make schemas derived from
				// this file unwritable).
				if encoding == format.BitPacked {
					continue
				}
				if c.encoding == nil {
					c.encoding = LookupEncoding(encoding)
				}
				if encoding != format.Plain && encoding != format.RLE {
					c.encoding = LookupEncoding(encoding)
					break
				}
			}
			c.compression = LookupCompressionCodec(c.chunks[0].MetaData.Codec)
		}

		return c, nil
	}

	c.typ = &groupType{}
	switch c.schema.LogicalType.Value.(type) {
	case *format.MapType:
		c.typ = &mapType{}
	case *format.ListType:
		c.typ = &listType{}
	case *format.VariantType:
		c.typ = &variantType{}
	default:
		// Fall back on the deprecated converted type when the schema element
		// carries no logical type annotation we recognize.
		if ct := c.schema.ConvertedType; ct.Valid {
			switch ct.V {
			case deprecated.Map:
				c.typ = &mapType{}
			case deprecated.List:
				c.typ = &listType{}
			}
		}
	}
	// Bound NumChildren by what the children slab has left rather than by the
	// schema elements that remain. Only the slab bounds the total across every
	// group: a schema where each group's claim fits the elements after it can
	// still claim more children in total than the schema has to give.
	if numChildren > len(cl.children) {
		return nil, fmt.Errorf("column %q declares %d children but only %d schema elements are left to be children",
			c.schema.Name, numChildren, len(cl.children))
	}

	// Reserve this group's children before recursing, so that a child's own
	// children are cut from the slab after ours rather than overlapping them.
	c.columns = allocate(&cl.children, numChildren)

	for i := range c.columns {
		if cl.schemaIndex >= len(metadata.Schema) {
			return nil, fmt.Errorf("column %q has more children than there are schemas in the file: %d > %d",
				c.schema.Name, cl.schemaIndex+1, len(metadata.Schema))
		}

		var err error
		c.columns[i], err = cl.open(file, metadata, columnIndexes, offsetIndexes, c.path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.schema.Name, err)
		}
	}

	c.fields = allocate(&cl.fields, len(c.columns))
	for i, column := range c.columns {
		c.fields[i] = column
	}
	return c, nil
}

// isLeafSchemaElement returns true if the schema element represents a leaf node
// (a column with actual data). According to the Parquet specification, the Type
// field is set for leaf nodes and not set (nil) for group nodes.
//
// This is the authoritative way to distinguish between:
//   - Leaf nodes: Type != nil (has column data)
//   - Group nodes: Type == nil (including empty groups with NumChildren == 0)
func isLeafSchemaElement(element *format.SchemaElement) bool {
	return element.Type.Valid
}

func schemaElementTypeOf(s *format.SchemaElement) Type {
	// A logical type exists, the Type interface implementations in this
	// package are all based on the logical parquet types declared in the
	// format sub-package so we can return them directly via a pointer type
	// conversion.
	switch lt := s.LogicalType.Value.(type) {
	case *format.StringType:
		return (*stringType)(lt)
	case *format.MapType:
		return (*mapType)(lt)
	case *format.ListType:
		return (*listType)(lt)
	case *format.EnumType:
		return (*enumType)(lt)
	case *format.DecimalType:
		// A parquet decimal can be one of several different physical types.
		if s.Type.Valid {
			var typ Type
			switch kind := Kind(s.Type.V); kind {
			case Int32:
				typ = Int32Type
			case Int64:
				typ = Int64Type
			case ByteArray:
				typ = ByteArrayType
			case FixedLenByteArray:
				if !s.TypeLength.Valid {
					panic("DECIMAL using FIXED_LEN_BYTE_ARRAY must specify a length")
				}
				typ = FixedLenByteArrayType(int(s.TypeLength.V))
			default:
				panic("DECIMAL must be of type INT32, INT64, BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY but got " + kind.String())
			}
			return &decimalType{
				decimal: *lt,
				Type:    typ,
			}
		}
	case *format.DateType:
		return (*dateType)(lt)
	case *format.TimeType:
		return canonicalTimeType(lt)
	case *format.TimestampType:
		return canonicalTimestampType(lt)
	case *format.IntType:
		return canonicalIntType(lt)
	case *format.NullType:
		return (*nullType)(lt)
	case *format.JsonType:
		return (*jsonType)(lt)
	case *format.BsonType:
		return (*bsonType)(lt)
	case *format.UUIDType:
		return (*uuidType)(lt)
	case *format.GeometryType:
		return (*geometryType)(lt)
	case *format.GeographyType:
		return (*geographyType)(lt)
	}

	if s.ConvertedType.Valid {
		ct := s.ConvertedType.V
		// This column contains no logical type but has a converted type, it
		// was likely created by an older parquet writer. Convert the legacy
		// type representation to the equivalent logical parquet type.
		switch ct {
		case deprecated.UTF8:
			return &stringType{}
		case deprecated.Map:
			return &mapType{}
		case deprecated.MapKeyValue:
			return &groupType{}
		case deprecated.List:
			return &listType{}
		case deprecated.Enum:
			return &enumType{}
		case deprecated.Decimal:
			if s.Scale.Valid && s.Precision.Valid {
				// A parquet decimal can be one of several different physical types.
				if s.Type.Valid {
					var typ Type
					switch kind := Kind(s.Type.V); kind {
					case Int32:
						typ = Int32Type
					case Int64:
						typ = Int64Type
					case FixedLenByteArray:
						if !s.TypeLength.Valid {
							panic("DECIMAL using FIXED_LEN_BYTE_ARRAY must specify a length")
						}
						typ = FixedLenByteArrayType(int(s.TypeLength.V))
					case ByteArray:
						typ = ByteArrayType
					default:
						panic("DECIMAL must be of type INT32, INT64, BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY but got " + kind.String())
					}
					return &decimalType{
						decimal: format.DecimalType{
							Scale:     s.Scale.V,
							Precision: s.Precision.V,
						},
						Type: typ,
					}
				}
			}
		case deprecated.Date:
			return &dateType{}
		case deprecated.TimeMillis:
			return &timeType{IsAdjustedToUTC: true, Unit: Millisecond.TimeUnit()}
		case deprecated.TimeMicros:
			return &timeType{IsAdjustedToUTC: true, Unit: Microsecond.TimeUnit()}
		case deprecated.TimestampMillis:
			return &timestampType{IsAdjustedToUTC: true, Unit: Millisecond.TimeUnit()}
		case deprecated.TimestampMicros:
			return &timestampType{IsAdjustedToUTC: true, Unit: Microsecond.TimeUnit()}
		case deprecated.Uint8:
			return &unsignedIntTypes[0]
		case deprecated.Uint16:
			return &unsignedIntTypes[1]
		case deprecated.Uint32:
			return &unsignedIntTypes[2]
		case deprecated.Uint64:
			return &unsignedIntTypes[3]
		case deprecated.Int8:
			return &signedIntTypes[0]
		case deprecated.Int16:
			return &signedIntTypes[1]
		case deprecated.Int32:
			return &signedIntTypes[2]
		case deprecated.Int64:
			return &signedIntTypes[3]
		case deprecated.Json:
			return &jsonType{}
		case deprecated.Bson:
			return &bsonType{}
		case deprecated.Interval:
			return &intervalType{}
		}
	}

	if s.Type.Valid {
		// The column only has a physical type, convert it to one of the
		// primitive types supported by this package.
		switch kind := Kind(s.Type.V); kind {
		case Boolean:
			return BooleanType
		case Int32:
			return Int32Type
		case Int64:
			return Int64Type
		case Int96:
			return Int96Type
		case Float:
			return FloatType
		case Double:
			return DoubleType
		case ByteArray:
			return ByteArrayType
		case FixedLenByteArray:
			if s.TypeLength.Valid {
				return FixedLenByteArrayType(int(s.TypeLength.V))
			}
		}
	}

	// If we reach this point, we are likely reading a parquet column that was
	// written with a non-standard type or is in a newer version of the format
	// than this package supports.
	return &nullType{}
}

func schemaRepetitionTypeOf(s *format.SchemaElement) format.FieldRepetitionType {
	if s.RepetitionType.Valid {
		return s.RepetitionType.V
	}
	return format.Required
}

func (c *Column) decompress(compressedPageData []byte, uncompressedPageSize int32) (page *buffer[byte], err error) {
	page = buffers.get(int(uncompressedPageSize))
	decoded, err := c.compression.Decode(page.data.Slice(), compressedPageData)
	switch {
	case err != nil:
		page.unref()
		page = nil
	case len(decoded) < int(uncompressedPageSize):
		page.data.Resize(len(decoded))
	case len(decoded) > int(uncompressedPageSize):
		page.data = memory.SliceBufferFrom(decoded)
	}
	return page, err
}

// DecodeDataPageV1 decodes a data page from the header, compressed data, and
// optional dictionary passed as arguments.
func (c *Column) DecodeDataPageV1(header DataPageHeaderV1, page []byte, dict Dictionary) (Page, error) {
	return c.decodeDataPageV1(header, newBuffer(page), dict, -1)
}

func (c *Column) decodeDataPageV1(header DataPageHeaderV1, page *buffer[byte], dict Dictionary, size int32) (Page, error) {
	var (
		pageData = page.data.Slice()
		err      error
	)

	if isCompressed(c.compression) {
		if page, err = c.decompress(pageData, size); err != nil {
			return nil, fmt.Errorf("decompressing data page v1: %w", err)
		}
		defer page.unref()
		pageData = page.data.Slice()
	}

	var (
		numValues        = int(header.NumValues())
		repetitionLevels *buffer[byte]
		definitionLevels *buffer[byte]
	)

	if c.maxRepetitionLevel > 0 {
		encoding := lookupLevelEncoding(header.RepetitionLevelEncoding(), c.maxRepetitionLevel)
		repetitionLevels, pageData, err = decodeLevelsV1(encoding, numValues, pageData)
		if err != nil {
			return nil, fmt.Errorf("decoding repetition levels of data page v1: %w", err)
		}
		defer repetitionLevels.unref()
	}

	if c.maxDefinitionLevel > 0 {
		encoding := lookupLevelEncoding(header.DefinitionLevelEncoding(), c.maxDefinitionLevel)
		definitionLevels, pageData, err = decodeLevelsV1(encoding, numValues, pageData)
		if err != nil {
			return nil, fmt.Errorf("decoding definition levels of data page v1: %w", err)
		}
		defer definitionLevels.unref()

		// Data pages v1 did not embed the number of null values,
		// so we have to compute it from the definition levels.
		numValues -= countLevelsNotEqual(definitionLevels.data.Slice(), c.maxDefinitionLevel)
	}

	return c.decodeDataPage(header, numValues, repetitionLevels, definitionLevels, page, pageData, dict)
}

// DecodeDataPageV2 decodes a data page from the header, compressed data, and
// optional dictionary passed as arguments.
func (c *Column) DecodeDataPageV2(header DataPageHeaderV2, page []byte, dict Dictionary) (Page, error) {
	return c.decodeDataPageV2(header, newBuffer(page), dict, -1)
}

func (c *Column) decodeDataPageV2(header DataPageHeaderV2, page *buffer[byte], dict Dictionary, size int32) (Page, error) {
	numValues := int(header.NumValues())
	pageData := page.data.Slice()
	var err error

	var repetitionLevels *buffer[byte]
	var definitionLevels *buffer[byte]

	if length := header.RepetitionLevelsByteLength(); length > 0 {
		if c.maxRepetitionLevel == 0 {
			// In some cases we've observed files which have a non-zero
			// repetition level despite the column not being repeated
			// (nor nested within a repeated column).
			//
			// See https://github.com/apache/parquet-testing/pull/24
			pageData, err = skipLevelsV2(pageData, length)
		} else {
			encoding := lookupLevelEncoding(header.RepetitionLevelEncoding(), c.maxRepetitionLevel)
			repetitionLevels, pageData, err = decodeLevelsV2(encoding, numValues, pageData, length)
		}
		if err != nil {
			return nil, fmt.Errorf("decoding repetition levels of data page v2: %w", io.ErrUnexpectedEOF)
		}
		if repetitionLevels != nil {
			defer repetitionLevels.unref()

			repLevels := repetitionLevels.data.Slice()
			if len(repLevels) != 0 && repLevels[0] != 0 {
				return nil, fmt.Errorf("%w: first repetition level for column %d (%s) is %d instead of zero, indicating that the page contains trailing values from the previous page (this is forbidden for data pages v2)",
					ErrMalformedRepetitionLevel, c.Index(), c.Name(), repLevels[0])
			}
		}
	}

	if length := header.DefinitionLevelsByteLength(); length > 0 {
		if c.maxDefinitionLevel == 0 {
			pageData, err = skipLevelsV2(pageData, length)
		} else {
			encoding := lookupLevelEncoding(header.DefinitionLevelEncoding(), c.maxDefinitionLevel)
			definitionLevels, pageData, err = decodeLevelsV2(encoding, numValues, pageData, length)
		}
		if err != nil {
			return nil, fmt.Errorf("decoding definition levels of data page v2: %w", io.ErrUnexpectedEOF)
		}
		if definitionLevels != nil {
			defer definitionLevels.unref()
		}
	}

	if isCompressed(c.compression) && header.IsCompressed() {
		if page, err = c.decompress(pageData, size); err != nil {
			return nil, fmt.Errorf("decompressing data page v2: %w", err)
		}
		defer page.unref()
		pageData = page.data.Slice()
	}

	numValues -= int(header.NumNulls())
	return c.decodeDataPage(header, numValues, repetitionLevels, definitionLevels, page, pageData, dict)
}

func (c *Column) decodeDataPage(header DataPageHeader, numValues int, repetitionLevels, definitionLevels, page *buffer[byte], data []byte, dict Dictionary) (Page, error) {
	pageEncoding := LookupEncoding(header.Encoding())
	pageType := c.Type()
	pageKind := pageType.Kind()

	if isDictionaryEncoding(pageEncoding) {
		// In some legacy configurations, the PLAIN_DICTIONARY encoding is used
		// on data page headers to indicate that the page contains indexes into
		// the dictionary page, but the page is still encoded using the RLE
		// encoding in this case, so we convert it to RLE_DICTIONARY.
		pageEncoding = &RLEDictionary
		pageType = indexedPageType{newIndexedType(pageType, dict)}
	}

	var obuf *buffer[uint32]
	var vbuf *buffer[byte]
	var pageOffsets []uint32
	var pageValues []byte
	switch {
	case pageEncoding.CanDecodeInPlace():
		vbuf = page
		pageValues = data
	default:
		vbuf = buffers.get(pageType.EstimateDecodeSize(numValues, data, pageEncoding))
		defer vbuf.unref()
		pageValues = vbuf.data.Slice()
	}

	// Page offsets not needed when dictionary-encoded
	if pageKind == ByteArray && !isDictionaryEncoding(pageEncoding) {
		obuf = offsets.get(numValues + 1)
		defer obuf.unref()
		pageOffsets = obuf.data.Slice()
	}

	values := pageType.NewValues(pageValues, pageOffsets)
	values, err := pageType.Decode(values, data, pageEncoding)
	if err != nil {
		return nil, err
	}

	if !isDictionaryEncoding(pageEncoding) {
		if err := checkPageDataCapacity(pageKind, c.Type().Length(), numValues, values); err != nil {
			return nil, err
		}
	}

	newPage := pageType.NewPage(c.Index(), numValues, values)
	switch {
	case c.maxRepetitionLevel > 0:
		newPage = newRepeatedPage(
			newPage,
			c.maxRepetitionLevel,
			c.maxDefinitionLevel,
			repetitionLevels.data.Slice(),
			definitionLevels.data.Slice(),
		)
	case c.maxDefinitionLevel > 0:
		newPage = newOptionalPage(
			newPage,
			c.maxDefinitionLevel,
			definitionLevels.data.Slice(),
		)
	}

	return newBufferedPage(newPage, obuf, vbuf, definitionLevels, repetitionLevels), nil
}

func decodeLevelsV1(enc encoding.Encoding, numValues int, data []byte) (*buffer[byte], []byte, error) {
	if len(data) < 4 {
		return nil, data, io.ErrUnexpectedEOF
	}
	i := 4
	j := 4 + int(binary.LittleEndian.Uint32(data))
	if j > len(data) {
		return nil, data, io.ErrUnexpectedEOF
	}
	levels, err := decodeLevels(enc, numValues, data[i:j])
	return levels, data[j:], err
}

func decodeLevelsV2(enc encoding.Encoding, numValues int, data []byte, length int64) (*buffer[byte], []byte, error) {
	levels, err := decodeLevels(enc, numValues, data[:length])
	return levels, data[length:], err
}

func decodeLevels(enc encoding.Encoding, numValues int, data []byte) (levels *buffer[byte], err error) {
	levels = buffers.get(numValues)
	decoded, err := enc.DecodeLevels(levels.data.Slice(), data)
	if err != nil {
		levels.unref()
		levels = nil
	} else {
		levels.data.Resize(0)
		levels.data.Append(decoded...)
		switch {
		case levels.data.Len() < numValues:
			err = fmt.Errorf("decoding level expected %d values but got only %d", numValues, levels.data.Len())
		case levels.data.Len() > numValues:
			levels.data.Resize(numValues)
		}
	}
	return levels, err
}

func skipLevelsV2(data []byte, length int64) ([]byte, error) {
	if length >= int64(len(data)) {
		return data, io.ErrUnexpectedEOF
	}
	return data[length:], nil
}

// DecodeDictionary decodes a data page from the header and compressed data
// passed as arguments.
func (c *Column) DecodeDictionary(header DictionaryPageHeader, page []byte) (Dictionary, error) {
	return c.decodeDictionary(header, newBuffer(page), -1)
}

func (c *Column) decodeDictionary(header DictionaryPageHeader, page *buffer[byte], size int32) (Dictionary, error) {
	pageData := page.data.Slice()

	if isCompressed(c.compression) {
		var err error
		if page, err = c.decompress(pageData, size); err != nil {
			return nil, fmt.Errorf("decompressing dictionary page: %w", err)
		}
		defer page.unref()
		pageData = page.data.Slice()
	}

	pageType := c.Type()
	pageEncoding := header.Encoding()
	if pageEncoding == format.PlainDictionary {
		pageEncoding = format.Plain
	}

	// Dictionaries always have PLAIN encoding, so we need to allocate offsets for the decoded page.
	numValues := int(header.NumValues())
	dictBufferSize := pageType.EstimateDecodeSize(numValues, pageData, LookupEncoding(pageEncoding))
	values := pageType.NewValues(make([]byte, 0, dictBufferSize), make([]uint32, 0, numValues))
	values, err := pageType.Decode(values, pageData, LookupEncoding(pageEncoding))
	if err != nil {
		return nil, err
	}
	if err := checkPageDataCapacity(pageType.Kind(), pageType.Length(), numValues, values); err != nil {
		return nil, err
	}
	return pageType.NewDictionary(int(c.index), numValues, values), nil
}

// check data buffer has enough capacity for the nubmer of values & value type
func checkPageDataCapacity(kind Kind, typeLength, numValues int, values encoding.Values) error {
	n := int64(numValues)
	var need int64
	switch kind {
	case Boolean: // bit packed
		need = (n + 7) / 8
	case Int32, Float:
		need = 4 * n
	case Int64, Double:
		need = 8 * n
	case Int96:
		need = 12 * n
	case FixedLenByteArray:
		need = int64(typeLength) * n
	default:
		return nil
	}
	data, _ := values.Data()
	if int64(cap(data)) < need {
		return fmt.Errorf("page header declares %d values requiring %d bytes but decoded buffer holds only %d: %w", numValues, need, cap(data), ErrCorrupted)
	}
	return nil
}

var _ Node = (*Column)(nil)
