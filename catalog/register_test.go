package catalog_test

// The bucket backend registers itself for s3:// in this test binary, so
// that the package's own tests (package catalog, which cannot import it)
// reach the dev S3 server through OpenAt and CreateAt.
import _ "github.com/topicsnap/topicsnap/catalog/bucket"
