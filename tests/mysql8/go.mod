// The MySQL-8-speaking login server for hakaru's caching_sha2_password tests
// (tests/it/mysql_auth.rs); .ci/run builds it with `go install` into its cache.
module hakaru.test/mysql8

go 1.23.3

require github.com/dolthub/vitess v0.0.0-20250512224608-8fb9c6ea092c

require (
	github.com/golang/protobuf v1.5.0 // indirect
	google.golang.org/genproto v0.0.0-20190926190326-7ee9db18f195 // indirect
	google.golang.org/grpc v1.24.0 // indirect
	google.golang.org/protobuf v1.27.1 // indirect
)
