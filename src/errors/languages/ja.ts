/**
 * Japanese (`ja`): every code's texts and the words around them, written for Japanese readers (docs/languages.md).
 * Codes, numbers, header names and product names stay as they are. Pure.
 */
import type { CatalogCode, CodeText, Translation, Words } from "./words";

const sec = (n: number): string => `${n} 秒`;

/** The opening of every retryable guidance: wait, then what the operator should look at if it persists. */
const waitThen = (wait: number, operator: string): string =>
  `**時間をおいて再試行してください。** ${sec(wait)}以上待ってから再試行してください。エラーが続く場合は、${operator}`;

const BLOCKED =
  "**再試行しないでください。** このブロックは意図的なものです。誤りだと思われる場合は、サイトの所有者にお問い合わせください。";
const UNPUBLISHED = "このコードの正確な意味は公開されていません。";
const IP_BANNED: CodeText = {
  title: "アクセス拒否: お使いの IP アドレスはブロックされています",
  detail: "サイトの所有者がお使いの IP アドレスをブロックしています。",
  whatYouShouldDo: BLOCKED,
};
const CLIENT_TLS: CodeText = {
  title: "クライアントの TLS エラー",
  detail: `お使いのクライアントの TLS 接続が、サイトの要件を満たしていません。${UNPUBLISHED}`,
  whatYouShouldDo:
    "**そのままでは再試行しないでください。** 最新の TLS クライアント（バージョン、暗号スイート、証明書）をお使いください。",
};
const ZONE_CONFIG: CodeText = {
  title: "ゾーンの設定エラー",
  detail: `エッジ上のサイトの設定により、このリクエストを処理できません。${UNPUBLISHED}`,
  whatYouShouldDo: "**再試行しないでください。** サイト運営者がゾーンの設定を見直す必要があります。",
};
const WORKER_FAILED: CodeText = {
  title: "Worker のエラー",
  detail: `サイトのスクリプトが失敗しました。${UNPUBLISHED}`,
  whatYouShouldDo: "**再試行しないでください。** サイト運営者がスクリプトのログを確認する必要があります。",
};
const REQUEST_BLOCKED: CodeText = {
  title: "アクセス拒否",
  detail: `サイトの所有者がこのリクエストをブロックしています。${UNPUBLISHED}`,
  whatYouShouldDo: BLOCKED,
};
const SNIPPET_FAILED: CodeText = {
  title: "Snippet のエラー",
  detail: `サイトが設定した Snippet が失敗しました。${UNPUBLISHED}`,
  whatYouShouldDo: "**再試行しないでください。** サイト運営者がゾーンの Snippet を確認する必要があります。",
};
const FIX_REWRITE = "**再試行しないでください。** サイト運営者が書き換えルールを修正する必要があります。";
const FIX_TRANSFORM = "**再試行しないでください。** サイト運営者が Transform ルールを修正する必要があります。";
const LEGAL = "**再試行しないでください。** 法的な制限のため、再試行しても解除されません。";

const CODES: Readonly<Record<CatalogCode, CodeText>> = {
  500: {
    title: "内部サーバーエラー",
    detail: "このリクエストの処理中に、エッジで内部エラーが発生しました。オリジンサーバーが原因とは限りません。",
    whatYouShouldDo: (w) =>
      `**時間をおいて再試行してください。** ${sec(w)}以上待ってから再試行してください。エラーが続く場合は、Ray ID をサイト運営者にお知らせください。`,
  },
  502: {
    title: "不正なゲートウェイ",
    detail:
      "サイトのオリジンサーバーが、エッジに不正または不完全な応答を返しました。多くの場合、オリジンの過負荷か設定の誤りが原因です。",
    whatYouShouldDo: (w) => waitThen(w, "サイト運営者がオリジンサーバーの状態と設定を確認してください。"),
  },
  504: {
    title: "ゲートウェイのタイムアウト",
    detail:
      "サイトのオリジンサーバーが、許容時間内にエッジへ応答しませんでした。多くの場合、オリジンが過負荷か、バックエンドの処理に時間がかかりすぎています。",
    whatYouShouldDo: (w) => waitThen(w, "サイト運営者がオリジンサーバー上の長時間かかる処理を調査してください。"),
  },
  520: {
    title: "Web サーバーが不明なエラーを返しています",
    detail: "サイトのオリジンサーバーが、エッジで解釈できない応答を送ったか、応答が完了する前に接続を閉じました。",
    whatYouShouldDo: (w) =>
      waitThen(w, "サイト運営者がオリジンのログでクラッシュ、空の応答、不正なヘッダーがないか確認してください。"),
  },
  521: {
    title: "Web サーバーがダウンしています",
    detail:
      "サイトのオリジンサーバーがエッジからの接続を拒否しました。オリジンが停止しているか、エッジをブロックしています。",
    whatYouShouldDo: (w) =>
      waitThen(w, "サイト運営者がオリジンサーバーが稼働し、エッジからの接続を受け付けていることを確認してください。"),
  },
  522: {
    title: "接続がタイムアウトしました",
    detail:
      "エッジがオリジンサーバーとの TCP 接続を確立できませんでした。TCP ハンドシェイクがタイムアウトしており、オリジンの過負荷、ファイアウォールによるエッジのブロック、またはネットワーク上で到達できないことが考えられます。",
    whatYouShouldDo: (w) =>
      waitThen(
        w,
        "サイト運営者がファイアウォールのルールを確認し、オリジンがエッジの IP 範囲からの接続を受け付けるようにしてください。",
      ),
  },
  523: {
    title: "オリジンに到達できません",
    detail: "エッジからオリジンサーバーのアドレスへのネットワーク経路がありません。",
    whatYouShouldDo: (w) =>
      waitThen(w, "サイト運営者がオリジンのアドレスとネットワークのルーティングを確認してください。"),
  },
  524: {
    title: "タイムアウトが発生しました",
    detail: (timeout) =>
      `サイトのオリジンサーバーが、${sec(timeout)}の Proxy Read Timeout 内に完全な応答を返しませんでした。接続は確立されましたが、オリジンの応答に時間がかかりすぎました。`,
    whatYouShouldDo: (w) => waitThen(w, "サイト運営者が長時間かかる処理やオリジンの過負荷がないか確認してください。"),
  },
  525: {
    title: "SSL ハンドシェイクに失敗しました",
    detail: "エッジとオリジンサーバーの間の TLS ハンドシェイクに失敗しました。",
    whatYouShouldDo:
      "**再試行しないでください。** オリジンの TLS 設定に問題があり、サイト運営者が修正するまで再試行しても解決しません。",
  },
  526: {
    title: "無効な SSL 証明書",
    detail:
      "オリジンサーバーが提示した証明書を、エッジで検証できませんでした（期限切れ、自己署名、または別の名前向けの証明書）。",
    whatYouShouldDo:
      "**再試行しないでください。** サイト運営者がオリジンに有効な証明書をインストールするまで、再試行しても解決しません。",
  },

  1000: {
    title: "DNS が禁止された IP を指しています",
    detail:
      "サイトの DNS またはオリジンがエッジ自身を指しているため、リクエストがループしてしまいます。エッジがこのリクエストを止めました。",
    whatYouShouldDo:
      "**再試行しないでください。** サイト運営者が、ゾーンのオリジンをエッジ以外のサーバーに向ける必要があります。",
  },
  1001: {
    title: "DNS 解決エラー",
    detail: "リクエストされたホスト名がエッジに設定されていないため、エッジはリクエストの送り先がわかりません。",
    whatYouShouldDo:
      "**再試行しないでください。** ホスト名を確認してください。正しい場合は、サイト運営者がエッジにゾーンを設定する必要があります。",
  },
  1002: {
    title: "DNS が禁止された IP を指しています",
    detail: "サイトの DNS レコードが、エッジがオリジンとして認めていないアドレスを指しています。",
    whatYouShouldDo:
      "**再試行しないでください。** サイト運営者が DNS レコードをオリジンサーバーの実際のアドレスに変更する必要があります。",
  },
  1003: {
    title: "アクセス拒否: IP アドレスでの直接アクセスは許可されていません",
    detail: "リクエストが、サイトのホスト名ではなく IP アドレスでエッジにアクセスしました。",
    whatYouShouldDo:
      "**そのままでは再試行しないでください。** エッジの IP アドレスではなく、ホスト名でサイトにアクセスしてください。",
  },
  1004: {
    title: "ホストが Web トラフィックを配信する設定になっていません",
    detail:
      "エッジはこのホスト名を認識していますが、まだ Web トラフィックを配信する設定になっていません。たとえば DNS の反映を待っている状態です。",
    whatYouShouldDo: (w) =>
      waitThen(w, "サイト運営者がホスト名がプロキシ経由になっているか、DNS が反映されているかを確認してください。"),
  },
  1005: {
    title: "アクセス拒否: 自律システム（ASN）がブロックされています",
    detail: "お使いの IP アドレスが属するネットワーク（ASN）を、サイトの所有者がブロックしています。",
    whatYouShouldDo: BLOCKED,
  },
  1006: {
    title: "アクセス拒否: お使いの IP アドレスはブロックされています",
    detail: "サイトの所有者が、お使いの IP アドレス（またはそれを含む範囲）をブロックしています。",
    whatYouShouldDo: BLOCKED,
  },
  1007: IP_BANNED,
  1008: IP_BANNED,
  1009: {
    title: "アクセス拒否",
    detail: "お使いの IP アドレスに対応する国または地域を、サイトの所有者がブロックしています。",
    whatYouShouldDo: BLOCKED,
  },
  1010: {
    title: "アクセス拒否",
    detail: "サイトの所有者が、お使いのブラウザーのシグネチャに基づいてアクセスをブロックしています。",
    whatYouShouldDo:
      "**再試行しないでください。** お使いのユーザーエージェントはサイトの所有者によってブロックされています。",
  },
  1011: {
    title: "アクセス拒否（ホットリンク禁止）",
    detail: "サイトの所有者は、このリソースを他のサイトに埋め込むことを許可していません。",
    whatYouShouldDo: "**再試行しないでください。** 他のサイトからではなく、サイト本体からリソースを開いてください。",
  },
  1012: {
    title: "アクセス拒否",
    detail:
      "サイトの所有者がこのリクエストをブロックしています。たとえば、お使いのアドレスから不審な動きがあった場合です。",
    whatYouShouldDo: BLOCKED,
  },
  1013: {
    title: "HTTP のホスト名と TLS SNI のホスト名が一致しません",
    detail: "HTTP リクエストのホスト名が、TLS ハンドシェイク（SNI）で送られたホスト名と異なります。",
    whatYouShouldDo:
      "**そのままでは再試行しないでください。** TLS ハンドシェイクとリクエストで同じホスト名を送り、途中のプロキシも確認してください。",
  },
  1014: {
    title: "アカウントをまたぐ CNAME は禁止されています",
    detail: "ホスト名が別のアカウントのゾーンへの CNAME になっており、エッジはこれを許可していません。",
    whatYouShouldDo:
      "**再試行しないでください。** サイト運営者が、ホスト名を自分のアカウントのゾーンに向ける必要があります。",
  },
  1015: {
    title: "レート制限されています",
    detail: "サイトの所有者の設定により、リクエストのレートが制限されています。",
    whatYouShouldDo: (w) =>
      `**時間をおいて再試行してください。** このブロックは一時的なものです。${sec(w)}以上待ってから再試行してください。\n\n推奨される手順:\n1. 次のリクエストまで ${sec(w)}待つ\n2. 再びレート制限された場合は、その応答の Retry-After が示す時間だけ待つ（ブロックが終わるまでの残り時間です）\n3. 5 回再試行してもレート制限が続く場合は、いったん止めてリクエストのパターンを見直す`,
  },
  1016: {
    title: "オリジンの DNS エラー",
    detail: "エッジがサイトのオリジンサーバーのホスト名を解決できませんでした。",
    whatYouShouldDo:
      "**再試行しないでください。** サイト運営者が、オリジンの DNS レコード（またはゾーン設定のオリジンアドレス）を修正する必要があります。",
  },
  1017: CLIENT_TLS,
  1018: {
    title: "ホストが見つかりません",
    detail: "エッジがリクエストされたホストを見つけられませんでした。たとえば、ゾーンが追加されたばかりの場合です。",
    whatYouShouldDo:
      "**再試行しないでください。** サイト運営者がエッジ上のホスト名の設定を確認する必要があります。追加したばかりのゾーンは、反映まで数分かかることがあります。",
  },
  1019: {
    title: "コンピュートサーバーのエラー",
    detail: "サイトのスクリプトが自分自身を再帰的に呼び出したため、エッジがループを止めました。",
    whatYouShouldDo: "**再試行しないでください。** サイト運営者がスクリプトの再帰を修正する必要があります。",
  },
  1020: {
    title: "アクセス拒否",
    detail: "サイトの所有者が設定したファイアウォールルールによって、リクエストがブロックされました。",
    whatYouShouldDo: BLOCKED,
  },
  1023: {
    title: "ホストが見つかりません",
    detail: "エッジが、パートナーの DNS 設定の中にリクエストされたホストを見つけられませんでした。",
    whatYouShouldDo: "**再試行しないでください。** サイト運営者がホスト名の DNS 設定を確認する必要があります。",
  },
  1025: {
    title: "しばらくしてからもう一度お試しください",
    detail: "サイトがプランのリクエスト上限に達しました。",
    whatYouShouldDo:
      "**再試行しないでください。** サイトはプランのリクエスト上限を使い切っています。上限を引き上げられるのはサイト運営者だけです。",
  },
  1026: {
    title: "法的な理由により利用できません",
    detail: "このコンテンツへのアクセスは、法的な理由により制限されています。",
    whatYouShouldDo: LEGAL,
  },
  1027: {
    title: "このサイトは一時的にレート制限されています",
    detail:
      "サイトの所有者が Workers 無料プランの 1 日あたりのリクエスト上限を超えました。上限は UTC の午前 0 時にリセットされます。",
    whatYouShouldDo:
      "**再試行しないでください。** サイトの 1 日あたりのリクエスト上限は UTC の午前 0 時にリセットされます。それまでは、すべてのリクエストがこのエラーになります。",
  },
  1028: CLIENT_TLS,
  1029: CLIENT_TLS,
  1033: {
    title: "トンネルのエラー",
    detail: "ホストはトンネルとして設定されていますが、現在エッジからトンネルに到達できません。",
    whatYouShouldDo: (w) => waitThen(w, "サイト運営者がトンネルのコネクターが動作しているか確認してください。"),
  },
  1034: {
    title: "エッジ IP の制限",
    detail: "サイトの DNS が、エッジがオリジンとして受け付けないアドレスを指しています。",
    whatYouShouldDo: "**再試行しないでください。** サイト運営者がホスト名の DNS レコードを修正する必要があります。",
  },
  1035: {
    title: "不正なリクエストの書き換え（無効な URI パス）",
    detail: "サイトの URL 書き換えルールが無効な URI パスを生成しました。",
    whatYouShouldDo: FIX_REWRITE,
  },
  1036: {
    title: "不正なリクエストの書き換え（最大長の超過）",
    detail: "サイトの URL 書き換えルールが、許容される長さを超える値を生成しました。",
    whatYouShouldDo: FIX_REWRITE,
  },
  1037: {
    title: "不正な書き換えルール（式の評価に失敗）",
    detail: "サイトの書き換えルールが、このリクエストに対して式を評価できませんでした。",
    whatYouShouldDo: "**再試行しないでください。** サイト運営者が書き換えルールの式を修正する必要があります。",
  },
  1038: {
    title: "HTTP ヘッダーの上限を超えました",
    detail: "リクエストのヘッダーが、サイトで許可されているサイズを超えています。",
    whatYouShouldDo: (w) =>
      `**ヘッダーを小さくして再試行してください。** ${sec(w)}以上待ち、送るヘッダーを減らすか小さくしてください（特に Cookie）。`,
  },
  1039: {
    title: "法的な制限",
    detail: `お客様の地域からのアクセスは、法的な理由により制限されています。${UNPUBLISHED}`,
    whatYouShouldDo: LEGAL,
  },
  1040: {
    title: "不正なリクエストの書き換え（ヘッダーの変更は許可されていません）",
    detail: "サイトの Transform ルールが、変更できないヘッダーを変更しようとしました。",
    whatYouShouldDo: FIX_TRANSFORM,
  },
  1041: {
    title: "不正なリクエストの書き換え（無効なヘッダー値）",
    detail: "サイトの Transform ルールが無効なヘッダー値を生成しました。",
    whatYouShouldDo: FIX_TRANSFORM,
  },
  1042: {
    title: "スクリプトが見つかりません",
    detail: "サイトのスクリプトが、この方法では到達できない同じアカウントの別のスクリプトを呼び出しました。",
    whatYouShouldDo:
      "**再試行しないでください。** サイト運営者が、バインディングまたはルート経由で別のスクリプトを呼び出す必要があります。",
  },
  1043: ZONE_CONFIG,
  1044: {
    title: "TLS の暗号が FIPS に準拠していません",
    detail: "お使いのクライアントが、サイトの FIPS ポリシーで許可されていない TLS 暗号スイートをネゴシエートしました。",
    whatYouShouldDo:
      "**そのままでは再試行しないでください。** FIPS 承認の暗号スイートを提示する TLS クライアントをお使いください。",
  },
  1045: {
    title: "サポートされていない機能またはプロトコル",
    detail: `リクエストが、エッジでサポートされていない機能またはプロトコルを使っています。${UNPUBLISHED}`,
    whatYouShouldDo:
      "**そのままでは再試行しないでください。** サポートされているプロトコルと機能でリクエストを送ってください。",
  },
  1047: ZONE_CONFIG,
  1049: ZONE_CONFIG,
  1100: WORKER_FAILED,
  1101: {
    title: "Worker が例外をスローしました",
    detail: "このサイトを配信しているスクリプトが、リクエストの処理中に例外をスローしました。",
    whatYouShouldDo:
      "**再試行しないでください。** 原因はサイトのスクリプトにあります。Ray ID をサイト運営者にお知らせください。",
  },
  1102: {
    title: "Worker がリソースの上限を超えました",
    detail: "サイトの所有者が設定した Worker スクリプトが、リソースの上限を超えました。",
    whatYouShouldDo:
      "**再試行しないでください。** サイト運営者がスクリプトの CPU またはメモリの使用量を減らす必要があります。",
  },
  1103: WORKER_FAILED,
  1104: WORKER_FAILED,
  1105: {
    title: "Worker が一時的に利用できません",
    detail: `サイトのスクリプトを実行できませんでした。${UNPUBLISHED}`,
    whatYouShouldDo: "**再試行しないでください。** サイト運営者がスクリプトのデプロイを確認する必要があります。",
  },
  1106: IP_BANNED,
  1107: REQUEST_BLOCKED,
  1108: REQUEST_BLOCKED,
  1109: REQUEST_BLOCKED,
  1200: {
    title: "キャッシュの接続数の上限",
    detail: "エッジでオリジンサーバーの応答を待つリクエストが多すぎるため、このリクエストは拒否されました。",
    whatYouShouldDo: (w) => waitThen(w, "サイト運営者がオリジンの応答が遅い原因を確認してください。"),
  },
  1201: SNIPPET_FAILED,
  1202: SNIPPET_FAILED,
  1203: SNIPPET_FAILED,
  1204: SNIPPET_FAILED,
  1205: {
    title: "リダイレクトが多すぎます",
    detail: "このリクエストの処理中に、サイトの Snippet がリダイレクトまたは再取得を繰り返しすぎました。",
    whatYouShouldDo: (w) => waitThen(w, "サイト運営者が Snippet にリダイレクトのループがないか確認してください。"),
  },
  1206: SNIPPET_FAILED,
};

const WORDS: Words = {
  language: "ja",
  errorTitle: (code, title) => `エラー ${code}: ${title}`,
  footer: (operator) => `このエラーは、サイトの所有者に代わって ${operator} が生成しました。`,
  seconds: sec,

  ownerBlock: "このブロックを解除できるのはサイトの所有者だけです。",
  ownerFix: "サイトの所有者による修正が必要です。",
  ownerNone: "サイトの所有者が対応する必要はありません。",
  notRetryableLead: "再試行しても解決しません",
  notRetryableBlock: "（ブロックが解除されるまで）。",
  notRetryableFix: "（原因が修正されるまで）。",
  notRetryableSame: "。同じリクエストには同じ応答が返ります。",
  retryHelpsLead: "再試行で解決する可能性があります。",
  retryHelpsWait: (wait) => `${wait}後にもう一度お試しください。`,

  eyebrow: (code, status) => `エラー ${code} · HTTP ${status}`,
  whatHappened: "何が起きたか",
  whatYouCanDo: "できること",
  details: "詳細",
  rayId: "Ray ID",
  copy: "コピー",
  copied: "コピーしました",
  selectAndCopy: "選択してコピー",
  timeUtc: "時刻（UTC）",
  website: "Web サイト",
  httpStatus: "HTTP ステータス",
  errorName: "エラー名",
  category: "カテゴリ",
  moreHelp: "その他のヘルプ",
  aboutError: (code) => `エラー ${code} について`,

  whereItBroke: "問題の発生箇所",
  hopYou: "あなた",
  hopEdge: "エッジ",
  hopWebsite: "Web サイト",
  subYou: "ブラウザーまたはアプリ",
  subEdge: "ネットワーク",
  originServer: "オリジンサーバー",
  stateWorking: "正常",
  stateError: "エラー",
  stateBlocked: "ブロック",
  stateNotReached: "未到達",

  mdWhatHappened: "何が起きたか",
  mdWhatYouShouldDo: "どうすればよいか",
  mdMoreHelp: "その他のヘルプ",

  ref: {
    errorCodes: "エラーコード",
    eyebrow: "リファレンス",
    lead: "エッジが生成する可能性のあるすべてのエラーを、クラスとカテゴリ別にまとめています。各コードのページでは、ステータス、再試行の扱い、何が起きたか、どうすればよいかを説明しています。",
    filter: "絞り込み",
    filterPlaceholder: "コード、タイトル、名前、カテゴリ",
    filterCount: "{total} 件中 {n} 件",
    class5xx: "5xx エラー",
    class5xxAbout: "Web サイトから応答を得られないときに、エッジが生成するサーバーエラーです。",
    class1xxx: "1xxx エラー",
    class1xxxAbout: "エッジのエラーです。リクエストが拒否されたか、エッジで処理できませんでした。",
    categories: {
      origin: "オリジン: Web サイトのサーバー",
      edge: "エッジ: エッジ自体",
      ssl: "SSL: Web サイトの証明書",
      access_denied: "アクセス拒否",
      rate_limit: "レート制限",
      dns: "DNS",
      config: "Web サイトの設定",
      tls: "TLS: クライアントの接続",
      legal: "法的制限",
      worker: "Workers: Web サイトのコード",
      rewrite: "書き換えルール",
      snippet: "Snippets",
      unsupported: "未サポート",
    },
    noRetry: "再試行不可",
    retryAfterChip: (s) => `${s} 秒後に再試行`,
    ownerAction: "所有者の対応",
    ownerActionLabel: "所有者の対応",
    yes: "はい",
    no: "いいえ",
    allCodes: "すべてのエラーコード",
    atAGlance: "概要",
    retry: "再試行",
    notRetryable: (lead, reason) => `再試行不可。${lead}${reason}Retry-After ヘッダーはありません。`,
    retryable: (wait, s) =>
      `再試行可能: ${wait}待ってください（Retry-After: ${s}。レート制限ルールが独自の値を設定する場合があります）。`,
    required: "必要です。",
    notRequired: "不要です。",
    whatToDo: "どうすればよいか",
    formats: "形式",
    formatsLead: ["エラーは、クライアントの ", " ヘッダーが優先する形式で返されます:"],
    formatHtml: "ブラウザーと、優先する形式を指定しないクライアント。",
    formatJson: ["または", "同じ 17 個のフィールド。"],
    formatMarkdown: "YAML フロントマターの後に、何が起きたかとどうすればよいか。",
  },
};

export const JA: Translation = { words: WORDS, codes: CODES };
