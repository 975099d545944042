// Owns: reading an HTTP/2 request (its pseudo-headers and fields) as the
// routes read an HTTP/1.1 one, so that the authorizer, the Origin check,
// the publish and the SSE stream see the same request whichever transport
// carried it: :method and :path become the method and target, :authority
// becomes Host (unless the request also sent one).
#pragma once

#include <string_view>
#include <vector>

#include "proto/http1.hpp"
#include "transport/h2_types.hpp"

namespace sluice::session {

// The request, its views into `h2`'s and `fields`, which it fills (their
// capacity is kept from call to call).
[[nodiscard]] proto::http1::Request as_http1_request(const transport::H2Request& h2,
                                                     std::vector<proto::http1::Header>& fields);

[[nodiscard]] proto::http1::Method method_of(std::string_view text);

}  // namespace sluice::session
