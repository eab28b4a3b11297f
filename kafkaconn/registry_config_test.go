package kafkaconn

import (
	"errors"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/schemas"
)

// TestRegistryOf reads the Schema Registry keys of Confluent's clients from
// a properties file, with flags (and the environment) on top.
func TestRegistryOf(t *testing.T) {
	cases := []struct {
		name  string
		props string
		flag  *schemas.Registry
		want  *schemas.Registry // nil: no registry
		err   string            // substring of the error
	}{
		{"none", "bootstrap.servers=b:9092\n", nil, nil, ""},
		{"several urls with user info", "schema.registry.url=https://r1:8081, https://r2:8081/apis/ccompat/v7/\nbasic.auth.credentials.source=USER_INFO\nbasic.auth.user.info=u:p:w\n", nil,
			&schemas.Registry{URLs: []string{"https://r1:8081", "https://r2:8081/apis/ccompat/v7"}, User: "u", Password: "p:w"}, ""},
		{"the schema.registry. prefixed alias", "schema.registry.url=http://r\nschema.registry.basic.auth.user.info=a:b\n", nil,
			&schemas.Registry{URLs: []string{"http://r"}, User: "a", Password: "b"}, ""},
		{"credentials in the URL, taken out", "schema.registry.url=https://u:pw@r:8081\nbasic.auth.credentials.source=URL\n", nil,
			&schemas.Registry{URLs: []string{"https://r:8081"}, User: "u", Password: "pw"}, ""},
		{"SASL_INHERIT", "schema.registry.url=http://r\nbasic.auth.credentials.source=SASL_INHERIT\nsecurity.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.username=k\nsasl.password=s\n", nil,
			&schemas.Registry{URLs: []string{"http://r"}, User: "k", Password: "s"}, ""},
		{"bearer token", "schema.registry.url=http://r\nbearer.auth.credentials.source=STATIC_TOKEN\nbearer.auth.token=tok\n", nil,
			&schemas.Registry{URLs: []string{"http://r"}, Token: "tok"}, ""},
		{"PEM truststore", "schema.registry.url=https://r\nschema.registry.ssl.truststore.location=/ca.pem\nschema.registry.ssl.truststore.type=PEM\n", nil,
			&schemas.Registry{URLs: []string{"https://r"}, CAFile: "/ca.pem"}, ""},
		{"flags win", "schema.registry.url=http://file\nbasic.auth.user.info=f:g\n", &schemas.Registry{URLs: []string{"http://flag"}, User: "env", Password: "pw"},
			&schemas.Registry{URLs: []string{"http://flag"}, User: "env", Password: "pw"}, ""},
		{"a JKS truststore", "schema.registry.url=https://r\nschema.registry.ssl.truststore.location=/t.jks\nschema.registry.ssl.truststore.type=JKS\n", nil, nil, "topicsnap reads PEM files"},
		{"basic and bearer", "schema.registry.url=http://r\nbasic.auth.user.info=a:b\nbearer.auth.token=t\n", nil, nil, "keep one"},
		{"user info without a colon", "schema.registry.url=http://r\nbasic.auth.user.info=ab\n", nil, nil, "USER:PASSWORD"},
		{"an unknown source", "schema.registry.url=http://r\nbasic.auth.credentials.source=OAUTH\n", nil, nil, "USER_INFO, URL or SASL_INHERIT"},
		{"credentials without a url", "basic.auth.user.info=a:b\n", nil, nil, "schema.registry.url is not"},
		{"a typo names the key", "schema.registry.urls=http://r\n", nil, nil, `did you mean "schema.registry.url"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			props, err := parseProperties("client.properties", c.props)
			var got *schemas.Registry
			if err == nil {
				got, err = registryOf("client.properties", props, c.flag)
			}
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrBadConfig) {
					t.Fatalf("error %v, want %q (ErrBadConfig)", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (c.want == nil) || got != nil && (strings.Join(got.URLs, " ") != strings.Join(c.want.URLs, " ") ||
				got.User != c.want.User || got.Password != c.want.Password || got.Token != c.want.Token || got.CAFile != c.want.CAFile) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			if got != nil && got.Password != "" && strings.Contains(got.String(), got.Password) {
				t.Fatalf("String() shows the password: %s", got)
			}
		})
	}
}
