#include "session/h2_request.hpp"

#include <gtest/gtest.h>

namespace sluice::session {
namespace {

using transport::H2Header;
using transport::H2Request;

TEST(H2Request, PseudoHeadersBecomeMethodTargetAndHost) {
  const H2Header fields[] = {{"origin", "https://app.example"}, {"last-event-id", "e:7"}};
  H2Request h2;
  h2.method = "GET";
  h2.authority = "push.example:8443";
  h2.path = "/sse/news?policy=latest&topic=sports";
  h2.headers = fields;
  std::vector<proto::http1::Header> storage;
  const proto::http1::Request request = as_http1_request(h2, storage);
  EXPECT_EQ(request.method, proto::http1::Method::get);
  EXPECT_EQ(request.method_text, "GET");
  EXPECT_EQ(request.path, "/sse/news");
  EXPECT_EQ(request.query, "policy=latest&topic=sports");
  EXPECT_EQ(request.header("Host"), "push.example:8443");
  EXPECT_EQ(request.header("Origin"), "https://app.example");
  EXPECT_EQ(request.header("Last-Event-ID"), "e:7");
  EXPECT_TRUE(request.body.empty());
}

TEST(H2Request, AHostFieldIsKeptAndATargetWithoutQueryHasNone) {
  const H2Header fields[] = {{"host", "given.example"}};
  H2Request h2;
  h2.method = "POST";
  h2.authority = "authority.example";
  h2.path = "/pub/x";
  h2.headers = fields;
  std::vector<proto::http1::Header> storage;
  const proto::http1::Request request = as_http1_request(h2, storage);
  EXPECT_EQ(request.method, proto::http1::Method::post);
  EXPECT_EQ(request.header("Host"), "given.example");
  EXPECT_EQ(request.headers.size(), 1u);
  EXPECT_EQ(request.path, "/pub/x");
  EXPECT_TRUE(request.query.empty());
}

TEST(H2Request, MethodsSluiceDoesNotNameAreOther) {
  EXPECT_EQ(method_of("OPTIONS"), proto::http1::Method::options);
  EXPECT_EQ(method_of("DELETE"), proto::http1::Method::del);
  EXPECT_EQ(method_of("CONNECT"), proto::http1::Method::other);
  EXPECT_EQ(method_of("get"), proto::http1::Method::other);  // methods are case-sensitive
}

}  // namespace
}  // namespace sluice::session
