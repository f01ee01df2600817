// tonql's explorer: GraphiQL pointed at the GraphQL endpoint beside the
// page it runs in. The URL is absolute and made from the page's own
// location, so the page at /KEY/ queries /KEY/graphql (the key stays in the
// path, where this server reads it) and the one at / queries /graphql.
// A page opened as /?api_key=KEY passes the key on the same way (the
// header is not an option for websockets). Subscriptions use the same path
// over ws: or wss: (graphql-transport-ws, with the graphql-ws client inside
// GraphiQL's bundle).
(function () {
  'use strict';

  var page = new URL(window.location.href);
  var key = page.searchParams.get('api_key');
  page.search = '';
  page.hash = '';
  var endpoint = new URL('graphql', page);
  if (key) {
    endpoint.searchParams.set('api_key', key);
  }
  var socket = new URL(endpoint.href);
  socket.protocol = endpoint.protocol === 'https:' ? 'wss:' : 'ws:';

  // shown is a URL as the editor may print it: the key, in the path or
  // the query, replaced by {api_key}. The editor's text is kept in the
  // browser's storage and lands in screenshots and shared snippets; the
  // key must not travel with it.
  function shown(u) {
    var s = new URL(u);
    s.pathname = s.pathname.split('/').map(function (seg) {
      return /^[0-9a-fA-F]{64}$/.test(seg) ? '{api_key}' : seg;
    }).join('/');
    var text = s.href;
    if (key) {
      text = text.replace('api_key=' + encodeURIComponent(key), 'api_key={api_key}');
    }
    return text.split('%7Bapi_key%7D').join('{api_key}');
  }

  var defaultQuery = [
    '# tonql GraphQL explorer. Run: Ctrl+Enter or the ▶ button.',
    '# The book icon (top left) documents every field.',
    '# Queries go to   ' + shown(endpoint.href),
    '# subscriptions   ' + shown(socket.href),
    '#',
    '# The newest actions in words, with their address book:',
    '{',
    '  actions(limit: 10) {',
    '    actions {',
    '      title',
    '      description',
    '      action_id',
    '      type',
    '      status',
    '      start_utime',
    '      trace_id',
    '      value',
    '      participants { roles account { address } }',
    '    }',
    '    address_book_entries {',
    '      address',
    '      user_friendly',
    '      domain',
    '      interfaces',
    '    }',
    '  }',
    '}',
    ''
  ].join('\n');

  var fetcher = GraphiQL.createFetcher({ url: endpoint.href, subscriptionUrl: socket.href });
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, {
    fetcher: fetcher,
    defaultQuery: defaultQuery,
    defaultEditorToolsVisibility: false
  }));
})();
